//! Two documents measured in turn on one gateway, round after round, and the ratio of their
//! pages per second taken per round: a host whose speed moves by a fifth within minutes moves
//! both halves of a round alike, so the rounds' ratios agree where single figures measured
//! minutes apart do not.

use super::measured::measure;
use crate::common::{BoxError, Gateway};

/// Rounds of the pair (each document `seconds` long in every round).
const ROUNDS: usize = 5;

/// `first` and `second` (a label and load.lua's arguments each) in turn, [`ROUNDS`] times: a
/// row per run, and one with the median of the rounds' ratios of `second`'s pages per second
/// to `first`'s, with the lowest and highest.
pub fn run(
    gateway: &Gateway,
    c: usize,
    seconds: u64,
    first: (&str, [&str; 3]),
    second: (&str, [&str; 3]),
) -> Result<Vec<String>, BoxError> {
    let mut lines = Vec::new();
    let mut ratios = Vec::new();
    for round in 1..=ROUNDS {
        let mut rps = [0.0; 2];
        for (i, (label, args)) in [first, second].into_iter().enumerate() {
            let measured = measure(gateway, args, c, seconds)?;
            rps[i] = measured.rps;
            let line = measured.line(&format!("{label}, in turn (round {round})"), c);
            eprintln!("{line}");
            lines.push(line);
        }
        ratios.push(rps[1] / rps[0].max(1.0));
    }
    ratios.sort_by(f64::total_cmp);
    let line = format!(
        "| {} / {}, in turn: median of {ROUNDS} rounds' ratios (lowest-highest) | {c} | {:.2}x ({:.2}-{:.2}) | | | | | | |",
        second.0,
        first.0,
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1],
    );
    eprintln!("{line}");
    lines.push(line);
    Ok(lines)
}
