public enum _TicTacTerminalPlaceholder {}
