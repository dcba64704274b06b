//! Reading nvcc fatbins and the cubins and PTX inside them.
