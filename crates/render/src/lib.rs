//! Synthetic scenes. Grows in issue 3.
