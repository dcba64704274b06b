// Included by error_in_header.cu: a typedef of an unknown type.
typedef float4x4_t real;
