print("tictac")
