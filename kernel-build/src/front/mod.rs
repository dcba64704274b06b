//! The CUDA declaration front end: preprocessing, parsing, the C type model, names and verification against compiled images.
