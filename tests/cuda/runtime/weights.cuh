// A header of the user's: carried by a module compiled at run time, read at build time for
// the struct its kernel takes by value.
#pragma once
#ifndef WIDTH
#define WIDTH 4
#endif

struct Weights {
    float w[WIDTH];
    float bias;
};
