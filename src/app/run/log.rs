//! The command log (`commands.jsonl`): what the world starts from, every command applied in order with its frame, display time and growth iteration, and the end; written by every run, read back by `sim --replay`.
//!
//! One JSON value a line:
//! - first `{"start": {...}}`: the recipe (its name and every value), seed
//!   and map size (and, from the simulator, the scripted stalls of its
//!   display clock);
//! - then one line per command applied, in order: `seq`, `origin`, `frame`
//!   (the update's index from 0), `time_ns` (its display time), `iteration`
//!   (of the current seed, when it applied) and the `command`;
//! - last `{"end": {"frame": F, "iteration": I}}`: the final frame and the
//!   iterations of the seed growing then.
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::app::world::command::{Applied, Command, Origin};
use crate::app::world::history::PastStep;
use crate::app::world::{AppConfig, AppError, World};
use crate::terrain::recipe::Recipe;

/// The command log's file name, beside the run's report.
pub const COMMAND_LOG_FILE: &str = "commands.jsonl";

/// What the world starts from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogStart {
    /// What the recipe is called: a built-in name or its file.
    pub recipe: String,
    /// The recipe's every value (a replay grows from these, whatever the
    /// file holds by then).
    pub values: Recipe,
    /// The first seed.
    pub seed: u64,
    /// Heightmap width, samples.
    pub width: usize,
    /// Heightmap height, samples.
    pub height: usize,
    /// The simulator's scripted stalls: (display time at which its clock
    /// jumps, nanoseconds it jumps), so that a replay shows its frames at
    /// the same times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<(i64, i64)>,
    /// The runs whose history this one goes on from (a save opened, itself
    /// perhaps opened from another), oldest first: their terrain commands
    /// are applied, each at its iteration, before anything of this run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opened: Vec<PastRun>,
}

/// A run gone on from: its commands and where it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PastRun {
    /// Its commands, in the order applied.
    pub entries: Vec<LogEntry>,
    /// Where it ended.
    pub end: LogEnd,
}

impl PastRun {
    /// Its commands a run going on from it applies again: those that
    /// change the terrain and the scrubs (a placement or a pause was that
    /// run's own).
    pub fn replayed(&self) -> impl Iterator<Item = &LogEntry> {
        self.entries.iter().filter(|entry| {
            entry.command.changes_terrain() || matches!(entry.command, Command::Scrub { .. })
        })
    }
}

/// Largest side of the map a command log (or a shared session's welcome)
/// may announce, samples: the simulator's own limit, checked before
/// anything is allocated for it.
pub const MAX_MAP_SIDE: usize = 8193;

impl LogStart {
    /// Whether its map's size is one a run can grow: each side 2 to
    /// [`MAX_MAP_SIDE`] samples; else what is wrong, in one line.
    pub fn check_size(&self) -> Result<(), String> {
        let sides = 2..=MAX_MAP_SIDE;
        if sides.contains(&self.width) && sides.contains(&self.height) {
            Ok(())
        } else {
            Err(format!(
                "the map is {}x{} samples; each side must be 2 to {MAX_MAP_SIDE}",
                self.width, self.height
            ))
        }
    }

    /// The start of a run of the demo terrain from `seed` on a `width`×`height` map.
    pub fn demo(seed: u64, width: usize, height: usize) -> Self {
        LogStart {
            recipe: "demo".into(),
            values: Recipe::demo(),
            seed,
            width,
            height,
            stalls: Vec::new(),
            opened: Vec::new(),
        }
    }

    /// The start of a run that goes on from where `log`'s run ended (a save
    /// opened): the same recipe, seed and map, with its history.
    pub fn opening(log: &CommandLog) -> Self {
        let mut opened = log.start.opened.clone();
        opened.push(PastRun {
            entries: log.entries.clone(),
            end: log.end.unwrap_or(LogEnd {
                frame: log.entries.last().map_or(0, |entry| entry.frame),
                iteration: log.entries.last().map_or(0, |entry| entry.iteration),
            }),
        });
        LogStart {
            stalls: Vec::new(),
            opened,
            ..log.start.clone()
        }
    }

    /// The app configuration this start grows (with the history of the
    /// runs it goes on from: their terrain commands and scrubs, each at its
    /// iteration, then growth to where each ended).
    pub fn app_config(&self) -> AppConfig {
        let mut config = AppConfig::new(
            self.values.clone(),
            &self.recipe,
            self.width,
            self.height,
            self.seed,
        );
        for run in &self.opened {
            for entry in run.replayed() {
                config.past.push(PastStep::Apply {
                    iteration: entry.iteration,
                    command: entry.command.clone(),
                    time_ns: entry.time_ns,
                });
            }
            config.past.push(PastStep::GrowTo(run.end.iteration));
        }
        config
    }

    /// Whether the runs it goes on from can be replayed: each one's
    /// commands can apply and follow one another; else what is wrong.
    fn check_opened(&self) -> Result<(), String> {
        for (index, run) in self.opened.iter().enumerate() {
            for (seq, entry) in run.entries.iter().enumerate() {
                let at = || format!("the opened run {}'s command {seq}", index + 1);
                if entry.seq != seq as u64 {
                    return Err(format!("{} has seq {}", at(), entry.seq));
                }
                if let Err(invalid) = entry.command.check() {
                    return Err(format!("{} cannot apply: {invalid}", at()));
                }
            }
        }
        Ok(())
    }
}

/// One command applied, as the log has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogEntry {
    /// Its sequence number.
    pub seq: u64,
    /// Who made it.
    pub origin: Origin,
    /// The update (frame) it applied in, from 0.
    pub frame: u64,
    /// That frame's display time, nanoseconds on the platform's clock.
    pub time_ns: i64,
    /// Iterations of the current seed done when it applied.
    pub iteration: usize,
    /// The command.
    pub command: Command,
}

impl LogEntry {
    /// `applied` in frame `frame`, shown at `time_ns`.
    pub fn new(applied: &Applied, frame: u64, time_ns: i64) -> Self {
        LogEntry {
            seq: applied.seq,
            origin: applied.origin,
            frame,
            time_ns,
            iteration: applied.iteration,
            command: applied.command.clone(),
        }
    }
}

/// Where the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogEnd {
    /// The final frame's index.
    pub frame: u64,
    /// Iterations of the seed growing then.
    pub iteration: usize,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StartLine {
    start: LogStart,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EndLine {
    end: LogEnd,
}

/// A whole command log.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandLog {
    /// What the world starts from.
    pub start: LogStart,
    /// The commands, in the order applied.
    pub entries: Vec<LogEntry>,
    /// Where the run ended; `None` while it runs.
    pub end: Option<LogEnd>,
}

/// A log line that cannot be read back.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {problem}")]
pub struct LogError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong and what it should be.
    pub problem: String,
}

impl CommandLog {
    /// The log of a run starting from `start`, nothing applied yet.
    pub fn new(start: LogStart) -> Self {
        CommandLog {
            start,
            entries: Vec::new(),
            end: None,
        }
    }

    /// The world this log's run ended with: its commands applied in order,
    /// each at the growth iteration it applied at, growth to the iteration
    /// the run ended at, every edit settled; no frames, no display time
    /// (`generate --replay`).
    pub fn replay_offline(&self) -> Result<World, AppError> {
        let mut world = World::new(&self.start.app_config())?;
        for entry in &self.entries {
            world.grow_to(entry.iteration);
            world.apply(&entry.command, entry.time_ns);
        }
        let last = self.entries.last().map_or(0, |entry| entry.iteration);
        world.grow_to(self.end.map_or(last, |end| end.iteration));
        Ok(world)
    }

    /// The log as `commands.jsonl` holds it, one JSON value a line.
    pub fn to_jsonl(&self) -> String {
        let mut lines = vec![line(&StartLine {
            start: self.start.clone(),
        })];
        lines.extend(self.entries.iter().map(line));
        lines.extend(self.end.map(|end| line(&EndLine { end })));
        lines.concat()
    }

    /// Reads a whole log: a start line, the commands in order (sequence
    /// numbers one after another, frames never going back) and the end,
    /// which must be its last line.
    pub fn parse(text: &str) -> Result<Self, LogError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(index, text)| (index + 1, text));
        let start = match lines.next() {
            Some((line, text)) => read::<StartLine>(line, text, "the start line")?.start,
            None => return Err(problem(1, "the log is empty; expected its start line")),
        };
        if let Err(error) = start.values.validate() {
            return Err(problem(1, format!("the recipe's {error}")));
        }
        if let Err(error) = start.check_size() {
            return Err(problem(1, error));
        }
        if let Err(error) = start.check_opened() {
            return Err(problem(1, error));
        }
        let mut log = CommandLog::new(start);
        let mut last_line = 1;
        for (line, text) in lines {
            last_line = line;
            if log.end.is_some() {
                return Err(problem(line, "a line after the end line"));
            }
            if text.trim_start().starts_with(r#"{"end""#) {
                let end = read::<EndLine>(line, text, "the end line")?.end;
                if let Some(last) = log.entries.last()
                    && end.frame < last.frame
                {
                    return Err(problem(
                        line,
                        format!(
                            "the end is at frame {}, before the last command's frame {}",
                            end.frame, last.frame
                        ),
                    ));
                }
                log.end = Some(end);
                continue;
            }
            let entry = read::<LogEntry>(line, text, "a command line")?;
            if let Err(invalid) = entry.command.check() {
                return Err(problem(
                    line,
                    format!(
                        "a {} command that cannot apply: {invalid}",
                        entry.command.kind()
                    ),
                ));
            }
            let expected_seq = log.entries.len() as u64;
            if entry.seq != expected_seq {
                return Err(problem(
                    line,
                    format!(
                        "seq {} where {expected_seq} comes next: a line is missing or out of order",
                        entry.seq
                    ),
                ));
            }
            if let Some(last) = log.entries.last()
                && entry.frame < last.frame
            {
                return Err(problem(
                    line,
                    format!(
                        "frame {} comes after frame {}: lines are out of order",
                        entry.frame, last.frame
                    ),
                ));
            }
            log.entries.push(entry);
        }
        if log.end.is_none() {
            return Err(problem(
                last_line + 1,
                "the log ends without its end line (was the run cut short, or the file truncated?)",
            ));
        }
        Ok(log)
    }
}

/// `value` as one line of JSON.
fn line<T: Serialize>(value: &T) -> String {
    // Only numbers, strings and enums: nothing in a log can fail to serialise.
    let mut text = serde_json::to_string(value).expect("a log line serialises");
    text.push('\n');
    text
}

/// Line `line`, `text`, read as `what`.
fn read<'a, T: Deserialize<'a>>(line: usize, text: &'a str, what: &str) -> Result<T, LogError> {
    serde_json::from_str(text)
        .map_err(|error| problem(line, format!("not {what} ({error}); the log is corrupt")))
}

fn problem(line: usize, problem: impl Into<String>) -> LogError {
    LogError {
        line,
        problem: problem.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::world::command::ReseedCause;
    use crate::input::Hand;

    fn log() -> CommandLog {
        let reseed = |seq, frame| LogEntry {
            seq,
            origin: Origin::Local,
            frame,
            time_ns: frame as i64 * 16_666_667,
            iteration: 12,
            command: Command::Reseed {
                cause: ReseedCause::AirTap,
                hand: Some(Hand::Left),
            },
        };
        CommandLog {
            start: LogStart {
                stalls: vec![(1_000_000_000, 500_000_000)],
                ..LogStart::demo(7, 33, 17)
            },
            entries: vec![reseed(0, 3), reseed(1, 9)],
            end: Some(LogEnd {
                frame: 20,
                iteration: 11,
            }),
        }
    }

    #[test]
    fn a_log_reads_back_as_written() {
        let text = log().to_jsonl();
        assert_eq!(text.lines().count(), 4);
        assert!(text.starts_with(r#"{"start":{"recipe":"demo","values":{"description""#));
        assert!(text.ends_with("{\"end\":{\"frame\":20,\"iteration\":11}}\n"));
        assert_eq!(CommandLog::parse(&text), Ok(log()));
    }

    #[test]
    fn a_corrupt_or_truncated_log_names_its_line() {
        let text = log().to_jsonl();
        let lines: Vec<&str> = text.lines().collect();
        let error = |text: String| CommandLog::parse(&text).unwrap_err();

        let truncated = error(lines[..3].join("\n"));
        assert_eq!(truncated.line, 4);
        assert!(truncated.problem.contains("without its end line"));

        let cut = error(format!("{}\n{}", lines[0], &lines[1][..30]));
        assert_eq!(cut.line, 2);
        assert!(cut.problem.contains("corrupt"), "{cut}");

        let missing = error([lines[0], lines[2], lines[3]].join("\n"));
        assert_eq!(missing.line, 2);
        assert!(missing.problem.contains("seq 1 where 0"), "{missing}");

        let after_end = error(format!("{text}{}\n", lines[1]));
        assert_eq!(after_end.line, 5);

        assert_eq!(error(String::new()).line, 1);
        let deep = error(text.replace("\"depth\":5", "\"depth\":50"));
        assert_eq!(deep.line, 1);
        assert!(
            deep.to_string()
                .starts_with("line 1: the recipe's growth.depth = 50 is out of range"),
            "{deep}"
        );
    }

    #[test]
    fn a_map_too_large_to_grow_is_refused_before_anything_is_allocated() {
        let text = log().to_jsonl();
        let mut start = log().start;
        start.width = 16384;
        start.height = 16384;
        let huge = CommandLog::new(start).to_jsonl();
        let first = huge.lines().next().unwrap();
        let rest: Vec<&str> = text.lines().skip(1).collect();
        let error = CommandLog::parse(&format!("{first}\n{}", rest.join("\n"))).unwrap_err();
        assert_eq!(error.line, 1);
        assert_eq!(
            error.problem,
            "the map is 16384x16384 samples; each side must be 2 to 8193"
        );
    }

    #[test]
    fn a_command_that_cannot_apply_names_its_line() {
        let text = log().to_jsonl();
        let lift = r#"{"seq":0,"origin":"local","frame":3,"time_ns":50000000,"iteration":3,"command":{"lift":{"hand":null,"at":[0.5,0.5],"height":1e39}}}"#;
        let lines: Vec<&str> = text.lines().collect();
        let hostile = [lines[0], lift, lines[lines.len() - 1]].join("\n");
        let error = CommandLog::parse(&hostile).unwrap_err();
        assert_eq!(error.line, 2);
        assert_eq!(
            error.problem,
            "a lift command that cannot apply: the lift's height inf is outside ±8"
        );
    }
}
