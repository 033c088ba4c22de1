//! End-to-end tests of the `tablejudge` binary: exit statuses, messages and JSON output.

mod util;

mod bad_input;
mod batch;
mod budgets;
mod calibrate;
mod camouflage_cli;
mod enroll;
mod grid_read;
mod layers_cli;
mod layers_verify;
mod mat;
mod set_check;
mod watch;
