//! Voice commands: the phrases the app listens for and what each asks of
//! it, and every button label ("see it, say it": a label on show is
//! pressed by saying it, [`super::controls`]). A platform hands the app the command it heard in
//! [`FrameInput::voice`](super::FrameInput::voice): the simulator from the
//! gesture script's `say` events, the OpenXR session from
//! XR_MSFT_holographic_remoting_speech (the Remoting Player recognises the
//! phrases of [`PHRASES`], its dictionary).

/// Something the wearer said that the app acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoiceCommand {
    /// "new terrain": a new seed, as an air-tap on the hologram gives.
    NewTerrain,
    /// "bigger": the hologram grows by [`VOICE_SCALE_STEP`](super::VOICE_SCALE_STEP).
    Bigger,
    /// "smaller": the hologram shrinks by [`VOICE_SCALE_STEP`](super::VOICE_SCALE_STEP).
    Smaller,
    /// "reset": the hologram goes back to where and how big a first run
    /// would place it.
    Reset,
    /// "next landscape": the next built-in recipe grows from a new seed.
    NextLandscape,
    /// "undo": the last terrain command (reseed, landscape, edit) is taken back.
    Undo,
    /// A button's label: it presses that button when it is on show.
    Label(&'static str),
}

use super::controls::{every_label, says};

/// Every phrase the app understands, as the speech recognizer's dictionary
/// spells it, with its command.
pub const PHRASES: [(&str, VoiceCommand); 6] = [
    ("new terrain", VoiceCommand::NewTerrain),
    ("bigger", VoiceCommand::Bigger),
    ("smaller", VoiceCommand::Smaller),
    ("reset", VoiceCommand::Reset),
    ("next landscape", VoiceCommand::NextLandscape),
    ("undo", VoiceCommand::Undo),
];

impl VoiceCommand {
    /// The command `words` say, if any: the words of one of [`PHRASES`], in
    /// any case, with any spacing (a recognizer may capitalise or pad them).
    /// A label is heard only when no phrase is the same words.
    pub fn recognize(words: &str) -> Option<Self> {
        PHRASES
            .iter()
            .find(|(phrase, _)| says(words, phrase))
            .map(|&(_, command)| command)
            .or_else(|| {
                every_label()
                    .into_iter()
                    .find(|label| says(words, label))
                    .map(VoiceCommand::Label)
            })
    }

    /// The words that say this command.
    pub fn phrase(self) -> &'static str {
        if let VoiceCommand::Label(label) = self {
            return label;
        }
        PHRASES
            .iter()
            .find(|&&(_, command)| command == self)
            .map_or("", |&(phrase, _)| phrase)
    }

    /// Everything a speech recognizer listens for: the phrases, then every
    /// label a button can show (in lower case) that is not one of them.
    pub fn dictionary() -> Vec<String> {
        let mut words: Vec<String> = PHRASES.iter().map(|(phrase, _)| (*phrase).into()).collect();
        for label in every_label() {
            if !words.iter().any(|known| says(known, label)) {
                words.push(label.to_lowercase());
            }
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_recognized_in_any_case_and_spacing() {
        for words in ["new terrain", "New Terrain", "  new   terrain "] {
            assert_eq!(
                VoiceCommand::recognize(words),
                Some(VoiceCommand::NewTerrain),
                "{words:?}"
            );
        }
    }

    #[test]
    fn other_words_are_no_command() {
        for words in [
            "",
            "new",
            "terrain new",
            "new terrains",
            "a new terrain",
            "much bigger",
            "resets",
        ] {
            assert_eq!(VoiceCommand::recognize(words), None, "{words:?}");
        }
    }

    #[test]
    fn a_button_label_is_heard_and_a_phrase_stays_a_phrase() {
        assert_eq!(
            VoiceCommand::recognize("pause GROWTH"),
            Some(VoiceCommand::Label("Pause growth"))
        );
        assert_eq!(
            VoiceCommand::recognize("islands"),
            Some(VoiceCommand::Label("islands"))
        );
        // "New terrain" is a label too; the phrase keeps its meaning.
        assert_eq!(
            VoiceCommand::recognize("new terrain"),
            Some(VoiceCommand::NewTerrain)
        );
        let dictionary = VoiceCommand::dictionary();
        assert!(dictionary.contains(&"close panel".to_string()));
        assert_eq!(
            dictionary
                .iter()
                .filter(|words| *words == "new terrain")
                .count(),
            1
        );
    }

    #[test]
    fn every_command_has_its_phrase() {
        for (phrase, command) in PHRASES {
            assert_eq!(command.phrase(), phrase);
            assert_eq!(VoiceCommand::recognize(phrase), Some(command));
        }
    }
}
