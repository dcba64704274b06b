// A user header: its declarations count as the user's.
#pragma once
#define CORPUS_LANES 8
typedef double acc_t;
struct Acc { acc_t sum; float v[CORPUS_LANES]; };
