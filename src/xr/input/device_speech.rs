//! What the device's own speech listener decides, kept apart from the
//! Windows calls (`windows_speech.rs`) so that Linux tests it: which
//! recognition results count and what they say, the names of Windows'
//! recognition statuses, and the one line a failure to listen is.

use crate::app::VoiceCommand;

/// Windows.Media.SpeechRecognition's `SpeechRecognitionConfidence`
/// values (`windows_speech.rs` holds them to the windows crate's at build time).
pub mod confidence {
    /// High.
    pub const HIGH: i32 = 0;
    /// Medium.
    pub const MEDIUM: i32 = 1;
    /// Low.
    pub const LOW: i32 = 2;
    /// Rejected.
    pub const REJECTED: i32 = 3;
}

/// Windows.Media.SpeechRecognition's `SpeechRecognitionResultStatus`
/// names, by value (`windows_speech.rs` holds them to the windows crate's).
pub const RESULT_STATUSES: [&str; 11] = [
    "Success",
    "TopicLanguageNotSupported",
    "GrammarLanguageMismatch",
    "GrammarCompilationFailure",
    "AudioQualityFailure",
    "UserCanceled",
    "Unknown",
    "TimeoutExceeded",
    "PauseLimitExceeded",
    "NetworkFailure",
    "MicrophoneUnavailable",
];

/// `SpeechRecognitionResultStatus::TimeoutExceeded`: a continuous session
/// that heard nothing for a while ends with it (and is started again).
pub const TIMEOUT_EXCEEDED: i32 = 7;

/// The name of a `SpeechRecognitionResultStatus`.
pub fn status_name(status: i32) -> String {
    usize::try_from(status)
        .ok()
        .and_then(|index| RESULT_STATUSES.get(index))
        .map_or_else(|| format!("status {status}"), |name| (*name).to_owned())
}

/// The command that `text`, heard with `confidence`, gives: only High and
/// Medium count (Low is Windows' guess, Rejected what it did not take for
/// any phrase; a wrong command is worse than none), and only words of the
/// app, by the mapping the remoting speech uses ([`VoiceCommand::recognize`]).
pub fn command_heard(text: &str, confidence: i32) -> Option<VoiceCommand> {
    if confidence != confidence::HIGH && confidence != confidence::MEDIUM {
        return None;
    }
    VoiceCommand::recognize(text)
}

/// What Microsoft documents a failure's HRESULT to mean when speech
/// recognition starts, as what the wearer can do about it.
pub fn advice(hresult: u32) -> Option<&'static str> {
    match hresult {
        // E_ACCESSDENIED: the user said no to the microphone, or turned it
        // off for the app (Microsoft's speech sample and "Speech recognition").
        0x8007_0005 => {
            Some("the microphone is off for holoterrain: allow it in Settings, Privacy, Microphone")
        }
        // MF_E_NO_CAPTURE_DEVICES_AVAILABLE (the samples' NoCaptureDevicesHResult).
        0xC00D_ABE0 => Some("there is no microphone"),
        // SPERR_NOT_FOUND (the samples' HResultRecognizerNotFound): the
        // language is there but not its speech pack.
        0x8004_503A => Some(
            "no speech recognizer for en-US: add the English (United States) speech language in Settings, Time & Language",
        ),
        // SPERR_SPEECH_PRIVACY_POLICY_NOT_ACCEPTED: what dictation and web
        // grammars need; a list of phrases is recognised on the device and
        // should not, but say what it is if Windows says it.
        0x8004_5509 => Some(
            "the speech privacy policy is not accepted: turn on online speech recognition in Settings, Privacy, Speech",
        ),
        _ => None,
    }
}

/// The one line a listener that cannot listen leaves: which step failed,
/// Windows' message and its code (when Windows gave an error, not a
/// status), and what to do when that is known.
pub fn failure_line(step: &str, hresult: Option<u32>, message: &str) -> String {
    // Windows' messages end in a line break and may hold more: one line.
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut line = format!("voice commands on this device are off: {step} failed");
    if !message.is_empty() {
        line.push_str(&format!(": {message}"));
    }
    if let Some(hresult) = hresult {
        line.push_str(&format!(" (0x{hresult:08X})"));
    }
    if let Some(advice) = hresult.and_then(advice) {
        line.push_str(&format!("; {advice}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_confident_results_that_say_a_command_count() {
        assert_eq!(
            command_heard("New Terrain", confidence::HIGH),
            Some(VoiceCommand::NewTerrain)
        );
        assert_eq!(
            command_heard("pause growth", confidence::MEDIUM),
            Some(VoiceCommand::Label("Pause growth"))
        );
        assert_eq!(command_heard("new terrain", confidence::LOW), None);
        assert_eq!(command_heard("new terrain", confidence::REJECTED), None);
        assert_eq!(command_heard("new terrains", confidence::HIGH), None);
        assert_eq!(command_heard("", confidence::HIGH), None);
    }

    #[test]
    fn statuses_have_their_windows_names() {
        assert_eq!(status_name(0), "Success");
        assert_eq!(status_name(TIMEOUT_EXCEEDED), "TimeoutExceeded");
        assert_eq!(status_name(10), "MicrophoneUnavailable");
        assert_eq!(status_name(11), "status 11");
        assert_eq!(status_name(-1), "status -1");
    }

    #[test]
    fn a_failure_is_one_line_with_the_code_and_what_to_do_when_known() {
        let line = failure_line(
            "starting the recognition session",
            Some(0x8007_0005),
            "Access is denied.\r\n",
        );
        assert_eq!(
            line,
            "voice commands on this device are off: starting the recognition session failed: \
             Access is denied. (0x80070005); the microphone is off for holoterrain: allow it in \
             Settings, Privacy, Microphone"
        );
        assert!(!line.contains('\n'));
        let unknown = failure_line("creating the recognizer", Some(0x8000_4001), "");
        assert_eq!(
            unknown,
            "voice commands on this device are off: creating the recognizer failed (0x80004001)"
        );
        assert_eq!(
            failure_line("compiling the phrases", None, "GrammarCompilationFailure"),
            "voice commands on this device are off: compiling the phrases failed: \
             GrammarCompilationFailure"
        );
        assert!(failure_line("x", Some(0x8004_503A), "m").contains("en-US"));
        assert!(failure_line("x", Some(0xC00D_ABE0), "m").ends_with("there is no microphone"));
    }
}
