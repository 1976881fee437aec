//! `moulin sectors`.

/// Arguments of `moulin sectors`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin sectors`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin sectors` is not built yet")
}
