// Intentionally empty: the target exists to export CTicTacNet.h to Swift.
#include "CTicTacNet.h"
