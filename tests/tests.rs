//! End-to-end tests of the `tablejudge` binary: exit statuses, messages and JSON output.

mod util;

mod layers_cli;
mod set_check;
