//! The subcommands of the `moulin` program, each a module of [`cmd`] with
//! its arguments and its `run`: the generator's (`solve`, `verify`, `pack`,
//! ...), the probe's (`probe`, `review`, `moves`), the server (`serve`) and
//! the download of a set (`fetch`).

pub mod cmd;
