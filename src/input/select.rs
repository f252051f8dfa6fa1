//! A boolean action (controller select, squeeze, a hand's runtime air-tap): one event on each press, never one per frame held.
use super::hold::Press;

/// Where the button is in its press cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SelectPhase {
    /// Seen released with the action active: the next press counts.
    Released,
    /// Held down (or not yet seen released while active).
    Held,
}

/// Edge-triggers a boolean select action.
#[derive(Debug, Clone)]
pub struct SelectRecognizer {
    /// The current phase.
    phase: SelectPhase,
    /// Whether the last frame saw the button down (with the action active).
    down: bool,
}

impl Default for SelectRecognizer {
    fn default() -> Self {
        SelectRecognizer::new()
    }
}

impl SelectRecognizer {
    /// Starts as held, so a button already down when the app starts (or when
    /// the controller appears) does not count as a press.
    pub fn new() -> Self {
        SelectRecognizer {
            phase: SelectPhase::Held,
            down: false,
        }
    }

    /// Feeds one frame: `Some(state)` when the action is active, `None` when
    /// it is not (no controller, not focused), which counts as an unknown
    /// state that needs a release before the next press. True on a press.
    pub fn update(&mut self, state: Option<bool>) -> bool {
        match (self.phase, state) {
            (SelectPhase::Released, Some(true)) => {
                self.phase = SelectPhase::Held;
                true
            }
            (_, Some(false)) => {
                self.phase = SelectPhase::Released;
                false
            }
            (_, None) => {
                self.phase = SelectPhase::Held;
                false
            }
            (SelectPhase::Held, Some(true)) => false,
        }
    }

    /// Feeds one frame like [`Self::update`] and says what the button did:
    /// pressed, held, released, or lost with the action (inactive).
    pub fn press(&mut self, state: Option<bool>) -> Press {
        let was_down = self.down;
        self.down = state == Some(true);
        let pressed = self.update(state);
        match state {
            None => Press::Lost,
            Some(true) if pressed => Press::Began,
            Some(true) => Press::Held,
            Some(false) if was_down => Press::Released,
            Some(false) => Press::Up,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired_frames(stream: &[Option<bool>]) -> Vec<usize> {
        let mut recognizer = SelectRecognizer::new();
        stream
            .iter()
            .enumerate()
            .filter_map(|(frame, state)| recognizer.update(*state).then_some(frame))
            .collect()
    }

    #[test]
    fn holding_the_button_fires_once() {
        let stream = [false, true, true, true, false].map(Some);
        assert_eq!(fired_frames(&stream), vec![1]);
    }

    #[test]
    fn each_press_fires() {
        let stream = [false, true, false, true].map(Some);
        assert_eq!(fired_frames(&stream), vec![1, 3]);
    }

    #[test]
    fn a_button_held_at_start_does_not_fire() {
        let stream = [true, true, false, true].map(Some);
        assert_eq!(fired_frames(&stream), vec![3]);
    }

    #[test]
    fn a_button_presses_begins_holds_releases_and_is_lost_when_inactive() {
        let mut recognizer = SelectRecognizer::new();
        let presses: Vec<Press> = [Some(false), Some(true), Some(true), Some(false), None]
            .into_iter()
            .map(|state| recognizer.press(state))
            .collect();
        assert_eq!(
            presses,
            [
                Press::Up,
                Press::Began,
                Press::Held,
                Press::Released,
                Press::Lost
            ]
        );
    }

    #[test]
    fn an_inactive_frame_mid_press_does_not_fire_again() {
        let stream = [
            Some(false),
            Some(true),
            None,
            Some(true),
            Some(false),
            Some(true),
        ];
        assert_eq!(fired_frames(&stream), vec![1, 5]);
    }
}
