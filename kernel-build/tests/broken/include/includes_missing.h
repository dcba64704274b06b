// Included by missing_include_in_header.cu.
typedef float real;
#include "also_missing.h"
