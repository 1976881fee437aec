//! moulin: the retrograde solver of the Nine Men's Morris tablebase and the
//! subcommands of the `moulin` program.

pub mod cmd;
pub mod perft;
pub mod prove;
pub mod solve;
pub mod verify;
