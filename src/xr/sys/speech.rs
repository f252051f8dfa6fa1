//! Holographic Remoting speech's declarations
//! (XR_MSFT_holographic_remoting_speech): the structures, functions and
//! values openxr-sys lacks, and the speech events they carry, read from
//! the event poll's buffer.
//!
//! The declarations follow Microsoft's published header
//! `openxr_msft_holographic_remoting_speech.h` (extension number 145, so its
//! structure types start at 1000144000); `tests/support/remoting_layout.c`
//! states the same facts in C and `sys/remoting.rs`'s tests check sizes and
//! offsets against the C compiler.

use std::ffi::{c_char, c_void};

use openxr as xr;

/// The extension's name.
pub const EXTENSION_NAME: &str = "XR_MSFT_holographic_remoting_speech";

/// XR_MAX_SPEECH_LANGUAGE_NAME_SIZE_MSFT, the NUL included.
pub const MAX_LANGUAGE_NAME_SIZE: usize = 32;
/// XR_MAX_SPEECH_RECOGNIZER_STATE_MESSAGE_SIZE_MSFT, the NUL included.
pub const MAX_STATE_MESSAGE_SIZE: usize = 32;

/// `XrStructureType` values of the extension, raw.
pub mod structure_type {
    /// XR_TYPE_REMOTING_SPEECH_INIT_INFO_MSFT.
    pub const INIT_INFO: i32 = 1_000_144_000;
    /// XR_TYPE_EVENT_DATA_REMOTING_SPEECH_RECOGNIZER_STATE_CHANGED_MSFT.
    pub const EVENT_DATA_RECOGNIZER_STATE_CHANGED: i32 = 1_000_144_001;
    /// XR_TYPE_EVENT_DATA_REMOTING_SPEECH_RECOGNIZED_MSFT.
    pub const EVENT_DATA_RECOGNIZED: i32 = 1_000_144_002;
}

/// XR_ERROR_REMOTING_SPEECH_PACKET_EXPIRED_MSFT: the text of a recognition
/// is no longer held.
pub const PACKET_EXPIRED: i32 = -1_000_144_001;

/// XrRemotingSpeechRecognizerStateMSFT values.
pub mod recognizer_state {
    /// XR_REMOTING_SPEECH_RECOGNIZER_STATE_INITIALIZING_MSFT.
    pub const INITIALIZING: u32 = 0;
    /// XR_REMOTING_SPEECH_RECOGNIZER_STATE_INITIALIZED_MSFT.
    pub const INITIALIZED: u32 = 1;
    /// XR_REMOTING_SPEECH_RECOGNIZER_STATE_INITIALIZATION_FAILED_MSFT.
    pub const INITIALIZATION_FAILED: u32 = 2;
    /// XR_REMOTING_SPEECH_RECOGNIZER_STATE_STARTED_MSFT.
    pub const STARTED: u32 = 3;
    /// XR_REMOTING_SPEECH_RECOGNIZER_STATE_STOPPED_MSFT.
    pub const STOPPED: u32 = 4;
}

/// XR_REMOTING_SPEECH_RECOGNITION_CONFIDENCE_HIGH_MSFT.
pub const CONFIDENCE_HIGH: u32 = 0;

/// XrRemotingSpeechInitInfoMSFT: the recognizer's language and phrases.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SpeechInitInfo {
    /// [`structure_type::INIT_INFO`].
    pub ty: xr::sys::StructureType,
    /// Extension chain (none defined).
    pub next: *const c_void,
    /// The language, NUL-terminated, e.g. "en-US".
    pub language: [c_char; MAX_LANGUAGE_NAME_SIZE],
    /// Bytes of the grammar file (0: none).
    pub grammar_file_size: u32,
    /// The grammar file's bytes (NULL: none).
    pub grammar_file_content: *mut u8,
    /// How many phrases the dictionary has (at least 1).
    pub dictionary_entries_count: u32,
    /// The phrases, each NUL-terminated UTF-8.
    pub dictionary_entries: *const *const c_char,
}

/// XrEventDataRemotingSpeechRecognizerStateChangedMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventDataRecognizerStateChanged {
    /// [`structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED`].
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *mut c_void,
    /// XrRemotingSpeechRecognizerStateMSFT.
    pub speech_recognizer_state: u32,
    /// Why initialization failed, NUL-terminated; empty otherwise.
    pub state_message: [c_char; MAX_STATE_MESSAGE_SIZE],
}

/// XrEventDataRemotingSpeechRecognizedMSFT: the player recognised a phrase,
/// whose text `input::speech::Speech::recognized_text` fetches.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventDataRecognized {
    /// [`structure_type::EVENT_DATA_RECOGNIZED`].
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *mut c_void,
    /// XrRemotingSpeechPacketIdMSFT: names the recognised text.
    pub packet_id: u64,
    /// XrRemotingSpeechRecognitionConfidenceMSFT.
    pub confidence: u32,
    /// Confidence from 0 to 1.
    pub raw_confidence: f32,
}

/// PFN_xrInitializeRemotingSpeechMSFT.
pub type InitializeFn =
    unsafe extern "system" fn(xr::sys::Session, *const SpeechInitInfo) -> xr::sys::Result;
/// PFN_xrRetrieveRemotingSpeechRecognizedTextMSFT: the two-call idiom over
/// the recognised text's bytes.
pub type RetrieveTextFn =
    unsafe extern "system" fn(xr::sys::Session, u64, u32, *mut u32, *mut c_char) -> xr::sys::Result;

/// A speech event, from the remoting event poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechEvent {
    /// The player's recognizer changed state.
    RecognizerState {
        /// XrRemotingSpeechRecognizerStateMSFT.
        state: u32,
        /// Why initialization failed; empty otherwise.
        message: String,
    },
    /// The player recognised a phrase.
    Recognized {
        /// Names the text for `input::speech::Speech::recognized_text`.
        packet_id: u64,
    },
}

/// The state's name as Microsoft's header spells it (without its prefix).
pub fn recognizer_state_name(state: u32) -> &'static str {
    match state {
        recognizer_state::INITIALIZING => "INITIALIZING",
        recognizer_state::INITIALIZED => "INITIALIZED",
        recognizer_state::INITIALIZATION_FAILED => "INITIALIZATION_FAILED",
        recognizer_state::STARTED => "STARTED",
        recognizer_state::STOPPED => "STOPPED",
        _ => "UNKNOWN",
    }
}

/// The speech event at `event`, when `event_type` is one; else `None`.
///
/// # Safety
/// `event` points at an event as xrPollEvent writes it, whose type is
/// `event_type`.
pub unsafe fn decode(event_type: i32, event: *const u8) -> Option<SpeechEvent> {
    match event_type {
        structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED => {
            // SAFETY: per this function's contract, the event is this structure.
            let event = unsafe { event.cast::<EventDataRecognizerStateChanged>().read() };
            Some(SpeechEvent::RecognizerState {
                state: event.speech_recognizer_state,
                message: fixed_string(&event.state_message),
            })
        }
        structure_type::EVENT_DATA_RECOGNIZED => {
            // SAFETY: per this function's contract, the event is this structure.
            let event = unsafe { event.cast::<EventDataRecognized>().read() };
            Some(SpeechEvent::Recognized {
                packet_id: event.packet_id,
            })
        }
        _ => None,
    }
}

/// The text in a fixed-size C string field, up to its NUL.
pub fn fixed_string(field: &[c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::super::ty;
    use super::*;

    /// An event structure's bytes, as the runtime writes it into the buffer.
    fn bytes_of<T>(event: &T) -> *const u8 {
        (event as *const T).cast()
    }

    #[test]
    fn speech_events_are_decoded_with_their_packet_and_message() {
        let recognized = EventDataRecognized {
            ty: ty(structure_type::EVENT_DATA_RECOGNIZED),
            next: std::ptr::null_mut(),
            packet_id: 42,
            confidence: CONFIDENCE_HIGH,
            raw_confidence: 0.9,
        };
        let mut message = [0 as c_char; MAX_STATE_MESSAGE_SIZE];
        for (slot, byte) in message.iter_mut().zip(b"no microphone") {
            *slot = *byte as c_char;
        }
        let failed = EventDataRecognizerStateChanged {
            ty: ty(structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED),
            next: std::ptr::null_mut(),
            speech_recognizer_state: recognizer_state::INITIALIZATION_FAILED,
            state_message: message,
        };
        // SAFETY: each pointer is at a live event of the type passed.
        unsafe {
            assert_eq!(
                decode(structure_type::EVENT_DATA_RECOGNIZED, bytes_of(&recognized)),
                Some(SpeechEvent::Recognized { packet_id: 42 })
            );
            assert_eq!(
                decode(
                    structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED,
                    bytes_of(&failed)
                ),
                Some(SpeechEvent::RecognizerState {
                    state: recognizer_state::INITIALIZATION_FAILED,
                    message: "no microphone".into()
                })
            );
            assert_eq!(decode(1_000_065_005, bytes_of(&recognized)), None);
        }
        assert_eq!(
            recognizer_state_name(recognizer_state::INITIALIZATION_FAILED),
            "INITIALIZATION_FAILED"
        );
    }
}
