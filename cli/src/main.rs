//! `moulin`: solve, probe and check the Nine Men's Morris tablebase.

use clap::{Parser, Subcommand};
use moulin_cli::cmd;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "moulin",
    version,
    about = "Nine Men's Morris tablebase: solve, probe, verify"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve sectors and write their tables (resumable).
    Solve(cmd::solve::Args),
    /// Outcome, distance and best moves of positions, from the tables.
    Probe(cmd::probe::Args),
    /// Value of a position with stones in hand (default: the start) by
    /// alpha-beta search over the placement phase, from the moving-phase tables.
    Prove(cmd::prove::Args),
    /// A game move by move: values before and after, best moves, blunders.
    Review(cmd::review::Args),
    /// Legal moves of a position (no tables needed).
    Moves(cmd::moves::Args),
    /// Number of move paths of a given length (rules check).
    Perft(cmd::perft::Args),
    /// Every sector of the game with its sizes, in solving order.
    Sectors(cmd::sectors::Args),
    /// Per-sector counts of the solved tables.
    Stats(cmd::stats::Args),
    /// Re-derive every stored value from the rules and check every file.
    Verify(cmd::verify::Args),
    /// Serve the play-and-analyse page, the tables (with range requests)
    /// and a JSON probe API over HTTP.
    Serve(cmd::serve::Args),
    /// Write the WDL tables again from the tables, smaller (zstd level 19 in
    /// 256 KiB blocks by default); resumable.
    Wdl(cmd::wdl::Args),
    /// Write a play set from the tables: outcome tables and the distances
    /// of one side only (the lost positions by default; about half the
    /// bytes, the same answers); resumable.
    Pack(cmd::pack::Args),
    /// Download a table set from an HTTP(S) host (such as `moulin serve`),
    /// checking every file's SHA-256; resumable.
    Fetch(cmd::fetch::Args),
    /// Maintenance: rewrite one stored value (for testing the verifier).
    Tamper(cmd::tamper::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Solve(a) => cmd::solve::run(a),
        Command::Probe(a) => cmd::probe::run(a),
        Command::Prove(a) => cmd::prove::run(a),
        Command::Review(a) => cmd::review::run(a),
        Command::Moves(a) => cmd::moves::run(a),
        Command::Perft(a) => cmd::perft::run(a),
        Command::Sectors(a) => cmd::sectors::run(a),
        Command::Stats(a) => cmd::stats::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Wdl(a) => cmd::wdl::run(a),
        Command::Pack(a) => cmd::pack::run(a),
        Command::Fetch(a) => cmd::fetch::run(a),
        Command::Tamper(a) => cmd::tamper::run(a),
    };
    cmd::exit(result)
}
