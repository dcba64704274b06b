// Array bounds and template arguments written with named constants and enumerators, as
// quantisation and NN libraries write them (a reproduction of our own).
#include <stdint.h>

static constexpr unsigned QK = 4;
constexpr int ROWS = QK * 2;
enum Op { FILL = 0, ARANGE = 1, SCALE };
namespace cfg {
constexpr int W = 8;
enum class Mode : short { A = 3, B };
const uint32_t LANES = W / 2;
}

struct Table {
    unsigned data[QK + 1];
    unsigned size;
};

struct Block {
    uint8_t qs[ROWS * cfg::LANES];
    float d;
};

template <Op F> __global__ void fill(float* a) { a[0] = F; }
template __global__ void fill<ARANGE>(float*);
template __global__ void fill<SCALE>(float*);

template <int N, cfg::Mode M> __global__ void wide(float* a) { a[0] = N + (int)M; }
template __global__ void wide<cfg::W * 2, cfg::Mode::B>(float*);

__global__ void tab(Table t, unsigned* out) { out[0] = t.data[QK] + t.size; }
__global__ void blocks(const Block* b, float* out) { out[0] = b[0].d + b[0].qs[ROWS * cfg::LANES - 1]; }
