//! Voice commands: the phrases the app listens for and what each asks of
//! it, and every button label ("see it, say it": a label on show is
//! pressed by saying it, [`super::controls`]). A platform hands the app the command it heard in
//! [`FrameInput::voice`](super::FrameInput::voice): the simulator from the
//! gesture script's `say` events, the OpenXR session from
//! XR_MSFT_holographic_remoting_speech (the Remoting Player recognises
//! [`VoiceCommand::dictionary`]) or, on Windows without a player, from
//! Windows' own speech recognition (listening for [`phrases_with`] the
//! labels on show, renewed as [`Vocabulary`] says).

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
    /// "redo": what the last undo took back is done again.
    Redo,
    /// "back": the world shows the moment before the last change before
    /// the one shown (growth included).
    Back,
    /// "forward": the world shows the moment after the next change, or now.
    Forward,
    /// A button's label: it presses that button when it is on show.
    Label(&'static str),
}

use super::controls::{every_label, says};

/// Every phrase the app understands, as the speech recognizer's dictionary
/// spells it, with its command.
pub const PHRASES: [(&str, VoiceCommand); 9] = [
    ("new terrain", VoiceCommand::NewTerrain),
    ("bigger", VoiceCommand::Bigger),
    ("smaller", VoiceCommand::Smaller),
    ("reset", VoiceCommand::Reset),
    ("next landscape", VoiceCommand::NextLandscape),
    ("undo", VoiceCommand::Undo),
    ("redo", VoiceCommand::Redo),
    ("back", VoiceCommand::Back),
    ("forward", VoiceCommand::Forward),
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

    /// Everything a speech recognizer listens for when it cannot be told
    /// which buttons are on show (the Remoting Player's is given its
    /// dictionary once a session): [`phrases_with`] every label a button can show.
    pub fn dictionary() -> Vec<String> {
        phrases_with(every_label())
    }
}

/// The words a recognizer listens for while `labels` are the buttons' labels:
/// the phrases, always, then each label (in lower case, single-spaced) that is not one of
/// them or an earlier label. Both recognizers' lists come from here: the
/// remoting one's with every label ([`VoiceCommand::dictionary`]), the
/// device's with those on show ([`Vocabulary`]).
pub fn phrases_with<'a>(labels: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut words: Vec<String> = PHRASES.iter().map(|(phrase, _)| (*phrase).into()).collect();
    for label in labels {
        if !words.iter().any(|known| says(known, label)) {
            let words_of_label: Vec<&str> = label.split_whitespace().collect();
            words.push(words_of_label.join(" ").to_lowercase());
        }
    }
    words
}

/// What a recognizer that compiles its list of phrases (Windows' own, on
/// the device) was last given, so that it is given a new list only when the
/// buttons on show ask for other words: compiling takes the recognizer a
/// while and it hears nothing meanwhile, so a frame that shows the same
/// labels must not ask for it.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    /// The phrases last handed out, sorted: the order of the buttons, like
    /// the case of their labels, does not change what is heard.
    compiled: Option<Vec<String>>,
}

impl Vocabulary {
    /// The phrases to compile now that `labels` are on show: `Some` the
    /// first time and whenever they make another set of phrases than the
    /// last one handed out, `None` when they make the same.
    pub fn update<'a>(&mut self, labels: impl IntoIterator<Item = &'a str>) -> Option<Vec<String>> {
        let phrases = phrases_with(labels);
        let mut set = phrases.clone();
        set.sort();
        if self.compiled.as_ref() == Some(&set) {
            return None;
        }
        self.compiled = Some(set);
        Some(phrases)
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
            Some(VoiceCommand::Label("Islands"))
        );
        // A landscape by its plain label; its recipe's name is no label.
        assert_eq!(
            VoiceCommand::recognize("mountains"),
            Some(VoiceCommand::Label("Mountains"))
        );
        assert_eq!(VoiceCommand::recognize("cordillera"), None);
        // "New terrain" is a label too; the phrase keeps its meaning.
        assert_eq!(
            VoiceCommand::recognize("new terrain"),
            Some(VoiceCommand::NewTerrain)
        );
        let dictionary = VoiceCommand::dictionary();
        assert!(dictionary.contains(&"close".to_string()));
        assert!(dictionary.contains(&"leave session".to_string()));
        assert_eq!(
            dictionary
                .iter()
                .filter(|words| *words == "new terrain")
                .count(),
            1
        );
    }

    #[test]
    fn the_phrases_are_always_heard_and_each_label_on_show_once() {
        let phrases = phrases_with(["Close panel", "Undo", "Pin  panel", "close PANEL"]);
        let fixed: Vec<String> = PHRASES.iter().map(|(phrase, _)| (*phrase).into()).collect();
        assert_eq!(phrases[..fixed.len()], fixed[..], "the fixed phrases first");
        assert_eq!(
            phrases[fixed.len()..],
            ["close panel".to_string(), "pin panel".to_string()],
            "\"Undo\" is a phrase already, \"close PANEL\" the same label again"
        );
        assert_eq!(
            phrases_with([]),
            fixed,
            "no button on show: the phrases alone"
        );
        assert_eq!(VoiceCommand::dictionary(), phrases_with(every_label()));
    }

    #[test]
    fn the_vocabulary_changes_only_when_the_labels_on_show_ask_for_other_words() {
        let mut vocabulary = Vocabulary::default();
        let first = vocabulary
            .update([])
            .expect("the first list is always compiled");
        assert_eq!(first.len(), PHRASES.len());
        assert_eq!(vocabulary.update([]), None, "nothing on show, still");
        let menu = ["New terrain", "Landscapes", "Pause growth", "Place here"];
        let with_menu = vocabulary.update(menu).expect("the hand menu shows");
        assert!(with_menu.contains(&"pause growth".to_string()));
        assert_eq!(vocabulary.update(menu), None, "the same menu, next frame");
        assert_eq!(
            vocabulary.update(["place HERE", "Pause growth", "Landscapes"]),
            None,
            "the same words in another order and case (\"New terrain\" is a phrase anyway)"
        );
        let resumed = ["New terrain", "Landscapes", "Resume growth", "Place here"];
        let with_resume = vocabulary.update(resumed).expect("paused: another label");
        assert!(with_resume.contains(&"resume growth".to_string()));
        assert!(!with_resume.contains(&"pause growth".to_string()));
        assert_eq!(
            vocabulary.update([]).map(|phrases| phrases.len()),
            Some(PHRASES.len()),
            "the menu hidden: back to the phrases"
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
