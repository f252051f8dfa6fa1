//! Toasts: a short line shown for [`TOAST_SECONDS`] on a small plate below where the wearer looked when it began, saying what a save, an undo or a redo did, what speech was heard, or that a save failed.
use glam::Vec3;

use super::ramp::{TextSize, text_in};
use crate::app::frame::{AppEvent, SaveOutcome};
use crate::app::world::undo::Undone;
use crate::input::Pose;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// How long a toast shows, seconds: long enough to read a few words.
pub const TOAST_SECONDS: f64 = 2.0;
/// How far ahead of the eyes a toast stands, metres: near enough that the
/// ramp's largest size is above 0.65° there (0.75°), and beyond the near fade.
pub const TOAST_DISTANCE_M: f32 = 0.7;
/// How far below the gaze its middle lies, metres at [`TOAST_DISTANCE_M`]
/// (about 8°): out of the way of what the wearer looks at, inside the
/// HoloLens 2's view (about 29° tall).
const TOAST_DROP_M: f32 = 0.1;
/// Most characters a toast says: a failed save's reason is cut to fit.
const MAX_TOAST_CHARS: usize = 44;
/// Room around the text on the plate, metres.
const TOAST_MARGIN_M: f32 = 0.008;
/// The plate: the controls' backplate colour (linear RGB).
const TOAST_PLATE: [f32; 4] = [0.01, 0.015, 0.035, 0.92];
/// The text: the controls' label grey, about 235 of 255 in sRGB.
const TOAST_TEXT: [f32; 4] = [0.83, 0.83, 0.83, 1.0];
/// A failed save's text: a warm amber that still reads on the plate.
const TOAST_WARNING: [f32; 4] = [1.0, 0.55, 0.12, 1.0];

/// What a toast says, and whether it warns.
#[derive(Debug, Clone, PartialEq)]
struct Toast {
    text: String,
    warns: bool,
    /// When it began, display nanoseconds.
    since_ns: i64,
    /// Where it stands: its plate's rectangle, facing the eyes then.
    plate: Option<UiRect>,
}

/// The toast on show, if any.
#[derive(Debug, Clone, Default)]
pub struct Toasts {
    shown: Option<Toast>,
}

/// The words of an undone (or redone) change.
fn change(kind: Undone) -> &'static str {
    match kind {
        Undone::Reseed => "new terrain",
        Undone::Landscape => "landscape",
        Undone::Trace => "fault",
        Undone::Lift => "lift",
        Undone::Weather => "weathering",
        Undone::Exaggeration => "height change",
    }
}

/// What `event` would toast, if anything: undo and redo say what they
/// did, speech what was heard.
fn toast_of(event: &AppEvent) -> Option<String> {
    match *event {
        AppEvent::Undid { undone: Some(kind) } => Some(format!("Undid the {}", change(kind))),
        AppEvent::Undid { undone: None } => Some("Nothing to undo".into()),
        AppEvent::UndoRefused => Some("Not undone: someone else changed it last".into()),
        AppEvent::Redid { redone: Some(kind) } => Some(format!("Redid the {}", change(kind))),
        AppEvent::Redid { redone: None } => Some("Nothing to redo".into()),
        AppEvent::Heard(voice) => Some(format!("Heard: {}", voice.phrase().to_lowercase())),
        _ => None,
    }
}

/// The reason at the end of a failed save's line (after its last `: `,
/// where the line names what failed): what a toast has room for; the log
/// keeps the whole line.
fn reason(line: &str) -> &str {
    line.rsplit(": ").next().unwrap_or(line)
}

/// `text` cut to [`MAX_TOAST_CHARS`], an ellipsis marking the cut.
fn fitted(text: &str) -> String {
    if text.chars().count() <= MAX_TOAST_CHARS {
        return text.into();
    }
    let kept: String = text.chars().take(MAX_TOAST_CHARS - 3).collect();
    format!("{}...", kept.trim_end())
}

impl Toasts {
    /// Begins the toast the frame shown at `now_ns` asks for, if any (a
    /// save's outcome, then the events in order: the last one wins, so an
    /// undo said shows what it undid), below where `head` looks; the text
    /// of the toast begun.
    pub fn begin(
        &mut self,
        now_ns: i64,
        events: &[AppEvent],
        saved: Option<&SaveOutcome>,
        head: Option<&Pose>,
    ) -> Option<String> {
        let mut begun = saved.map(|outcome| match outcome {
            SaveOutcome::Saved(name) => (format!("Saved as {name}"), false),
            SaveOutcome::Failed(why) => (fitted(&format!("Save failed: {}", reason(why))), true),
        });
        for event in events {
            if let Some(text) = toast_of(event) {
                begun = Some((text, false));
            }
        }
        let (text, warns) = begun?;
        let plate = head.filter(|head| head.is_finite()).map(|head| {
            let forward = head.orientation * Vec3::NEG_Z;
            let up = head.orientation * Vec3::Y;
            let right = head.orientation * Vec3::X;
            let width = TextSize::Large.width_m(&text) + 2.0 * TOAST_MARGIN_M;
            let height = TextSize::Large.line_m() + 2.0 * TOAST_MARGIN_M;
            UiRect {
                centre: head.position + forward * TOAST_DISTANCE_M - up * TOAST_DROP_M,
                right: right * (width / 2.0),
                up: up * (height / 2.0),
            }
        });
        self.shown = Some(Toast {
            text: text.clone(),
            warns,
            since_ns: now_ns,
            plate,
        });
        Some(text)
    }

    /// The text on show at `now_ns`, if a toast is.
    pub fn showing(&self, now_ns: i64) -> Option<&str> {
        self.live(now_ns).map(|toast| toast.text.as_str())
    }

    fn live(&self, now_ns: i64) -> Option<&Toast> {
        self.shown.as_ref().filter(|toast| {
            let age = now_ns.saturating_sub(toast.since_ns);
            (0..(TOAST_SECONDS * 1e9) as i64).contains(&age)
        })
    }

    /// The toast on show at `now_ns` as the controls' layer draws it: its
    /// plate, then its line.
    pub fn drawn(&self, now_ns: i64) -> Option<(UiQuad, UiLabel)> {
        let toast = self.live(now_ns)?;
        let plate = toast.plate?;
        let color = if toast.warns {
            TOAST_WARNING
        } else {
            TOAST_TEXT
        };
        Some((
            UiQuad {
                rect: plate,
                color: TOAST_PLATE,
                fill: UiFill::Solid,
            },
            text_in(&plate, toast.text.clone(), TextSize::Large, color),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::VoiceCommand;
    use crate::app::controls::measure::{contrast_ratio, srgb_from_linear, text_deg};
    use crate::render::ui::text_width;

    const SECOND: i64 = 1_000_000_000;

    fn head() -> Pose {
        Pose::new(Vec3::new(0.0, 1.6, 0.0), glam::Quat::IDENTITY)
    }

    #[test]
    fn an_undo_said_toasts_what_it_undid_for_two_seconds_then_nothing() {
        let mut toasts = Toasts::default();
        let events = [
            AppEvent::Heard(VoiceCommand::Undo),
            AppEvent::Undid {
                undone: Some(Undone::Lift),
            },
        ];
        let begun = toasts.begin(SECOND, &events, None, Some(&head()));
        assert_eq!(begun.as_deref(), Some("Undid the lift"));
        assert_eq!(toasts.showing(2 * SECOND), Some("Undid the lift"));
        assert!(toasts.drawn(2 * SECOND).is_some());
        assert_eq!(toasts.showing(3 * SECOND), None, "gone after 2 s");
        assert!(toasts.drawn(3 * SECOND).is_none());
        assert_eq!(toasts.begin(4 * SECOND, &[], None, Some(&head())), None);
    }

    #[test]
    fn speech_heard_and_a_save_toast_and_a_failed_save_warns() {
        let mut toasts = Toasts::default();
        let heard = [AppEvent::Heard(VoiceCommand::NewTerrain)];
        assert_eq!(
            toasts.begin(0, &heard, None, Some(&head())).as_deref(),
            Some("Heard: new terrain")
        );
        let saved = SaveOutcome::Saved("save-003".into());
        assert_eq!(
            toasts.begin(0, &[], Some(&saved), Some(&head())).as_deref(),
            Some("Saved as save-003")
        );
        let (_, fine) = toasts.drawn(0).unwrap();
        let failed = SaveOutcome::Failed(
            "cannot save the terrain into /state/save-004/terrain.png: No space left on device"
                .into(),
        );
        let text = toasts.begin(0, &[], Some(&failed), Some(&head())).unwrap();
        assert_eq!(text, "Save failed: No space left on device");
        let nowhere = SaveOutcome::Failed(
            "the terrain is not saved: this run keeps nothing (no state folder) and more words"
                .into(),
        );
        let text = toasts.begin(0, &[], Some(&nowhere), Some(&head())).unwrap();
        assert!(
            text.starts_with("Save failed: this run keeps nothing"),
            "{text}"
        );
        assert!(text.chars().count() <= MAX_TOAST_CHARS && text.ends_with("..."));
        let (_, warning) = toasts.drawn(0).unwrap();
        assert_ne!(
            warning.color, fine.color,
            "a failure looks other than a save"
        );
    }

    #[test]
    fn a_toast_stands_below_the_gaze_readable_whole_and_on_a_plate_that_holds_it() {
        let mut toasts = Toasts::default();
        let events = [AppEvent::Undid {
            undone: Some(Undone::Exaggeration),
        }];
        toasts.begin(0, &events, None, Some(&head()));
        let (plate, label) = toasts.drawn(0).unwrap();
        let eye = head().position;
        let below = (eye.y - plate.rect.centre.y)
            .atan2(TOAST_DISTANCE_M)
            .to_degrees();
        assert!((5.0..12.0).contains(&below), "{below}° below the gaze");
        assert!(text_deg(eye, &label) >= 0.65, "{}°", text_deg(eye, &label));
        let line = 2.0 * label.rect.up.length();
        assert!(text_width(&label.text, line) <= 2.0 * plate.rect.right.length());
        let contrast = contrast_ratio(
            srgb_from_linear([label.color[0], label.color[1], label.color[2]]),
            srgb_from_linear([TOAST_PLATE[0], TOAST_PLATE[1], TOAST_PLATE[2]]),
        );
        assert!(contrast >= 4.5, "{contrast}");
        let warning = contrast_ratio(
            srgb_from_linear([TOAST_WARNING[0], TOAST_WARNING[1], TOAST_WARNING[2]]),
            srgb_from_linear([TOAST_PLATE[0], TOAST_PLATE[1], TOAST_PLATE[2]]),
        );
        assert!(warning >= 4.5, "{warning}");
    }
}
