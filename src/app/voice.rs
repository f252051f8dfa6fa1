//! Voice commands: the phrases the app listens for and what each asks of
//! it. A platform hands the app the command it heard in
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
}

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
    pub fn recognize(words: &str) -> Option<Self> {
        let spoken: Vec<String> = words.split_whitespace().map(str::to_lowercase).collect();
        PHRASES
            .iter()
            .find(|(phrase, _)| {
                phrase
                    .split_whitespace()
                    .eq(spoken.iter().map(String::as_str))
            })
            .map(|&(_, command)| command)
    }

    /// The phrase that says this command.
    pub fn phrase(self) -> &'static str {
        PHRASES
            .iter()
            .find(|&&(_, command)| command == self)
            .map_or("", |&(phrase, _)| phrase)
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
    fn every_command_has_its_phrase() {
        for (phrase, command) in PHRASES {
            assert_eq!(command.phrase(), phrase);
            assert_eq!(VoiceCommand::recognize(phrase), Some(command));
        }
    }
}
