//! Photos to grids (see crates/vision/README or design.md). Grows in issue 3.
