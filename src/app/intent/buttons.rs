//! What a pressed button does: the world's command it issues, the panel's own page or pin, a scrub of the history by the time slider, a save or a session asked of the platform.
use super::{Commands, Interaction};
use crate::app::controls::{Action, UiPress};
use crate::app::frame::{AppEvent, FrameInput};
use crate::app::world::command::{Command, ReseedCause, exaggeration_after};
use crate::app::world::placement::PlacementCause;
use crate::input::Pose;

/// How far in from each end of the time slider (as a fraction of it) its
/// track ends: a press beyond is its end.
const SLIDER_END: f32 = 0.02;

impl Interaction {
    /// Does what a pressed button says, and tells of the press.
    pub(super) fn press(
        &mut self,
        press: UiPress,
        head: Option<&Pose>,
        input: &FrameInput,
        commands: &mut dyn Commands,
    ) {
        commands.tell(AppEvent::Pressed(press));
        let drawn = self.drawn(input, commands.world()).is_some();
        match press.action {
            Action::NewTerrain if drawn => commands.issue(Command::Reseed {
                cause: ReseedCause::Menu,
                hand: None,
            }),
            Action::Landscape(name) if drawn => commands.issue(Command::Landscape {
                cause: ReseedCause::Menu,
                name,
            }),
            Action::NewTerrain | Action::Landscape(_) => {}
            Action::PauseGrowth => commands.issue(Command::Pause),
            Action::ResumeGrowth => commands.issue(Command::Resume),
            Action::Slower | Action::Faster => {
                let rate = commands.world().growth_state().iterations_per_second;
                commands.issue(Command::Speed {
                    iterations_per_second: press.action.rate_after(rate),
                });
            }
            Action::Undo => commands.issue(Command::Undo),
            Action::Redo => commands.issue(Command::Redo),
            Action::Contours => self.contours_hidden = !self.contours_hidden,
            Action::Taller | Action::Flatter => {
                let now = commands.world().exaggeration();
                commands.issue(Command::Exaggerate {
                    exaggeration: exaggeration_after(now, press.action == Action::Taller),
                });
            }
            Action::Weather if drawn => commands.issue(Command::Weather),
            Action::Weather => {}
            Action::Save => commands.tell(AppEvent::SaveAsked),
            Action::ShareSession => commands.tell(AppEvent::ShareAsked),
            Action::LeaveSession => commands.tell(AppEvent::LeaveAsked),
            Action::PlaceHere => {
                if commands.world().placement().is_some() {
                    self.end_quietly();
                    commands.issue(Command::ResetPlacement);
                    self.reset_by = Some(PlacementCause::Menu);
                }
            }
            Action::Landscapes
            | Action::PinPanel
            | Action::UnpinPanel
            | Action::ClosePanel
            | Action::HistoryPage
            | Action::TerrainPage => {
                self.controls.act(press.action, head);
            }
            Action::TimeSlider | Action::Back | Action::Forward | Action::Now => {
                let history = commands.world().history();
                let to = match press.action {
                    Action::TimeSlider => {
                        // The track's ends are a finger's width in from the
                        // plate's: a press there is the start, or now.
                        let along =
                            ((press.along - SLIDER_END) / (1.0 - 2.0 * SLIDER_END)).clamp(0.0, 1.0);
                        (f64::from(along) * history.length() as f64).round() as u64
                    }
                    Action::Back => history.back(),
                    Action::Forward => history.forward(),
                    _ => history.length(),
                };
                commands.issue(Command::Scrub { to });
            }
            Action::OpenSave(row) => commands.tell(AppEvent::OpenAsked(row)),
        }
    }
}
