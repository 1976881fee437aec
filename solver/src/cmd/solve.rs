//! `moulin solve`.

/// Arguments of `moulin solve`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin solve`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin solve` is not built yet")
}
