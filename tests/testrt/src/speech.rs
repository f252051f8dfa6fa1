//! XR_MSFT_holographic_remoting_speech, emulated (offered with remoting):
//! the Remoting Player's speech recognizer. `xrInitializeRemotingSpeechMSFT`
//! starts it for a session with the application's language and dictionary
//! (INITIALIZED, then STARTED); what the wearer says (`say`) is recognised
//! when it is one of the dictionary's phrases, each recognition an event
//! whose text `xrRetrieveRemotingSpeechRecognizedTextMSFT` hands over. A
//! new session needs the recognizer started again. The structures are the
//! app's own declarations (`holoterrain::xr::sys::speech`), which its tests check
//! against the C layout of Microsoft's header.

use std::collections::HashMap;
use std::ffi::c_char;

use holoterrain::xr::sys::speech::{
    EventDataRecognized, EventDataRecognizerStateChanged, InitializeFn, MAX_LANGUAGE_NAME_SIZE,
    MAX_STATE_MESSAGE_SIZE, PACKET_EXPIRED, RetrieveTextFn, SpeechInitInfo, recognizer_state,
    structure_type,
};
use openxr_sys as xr;
use xr::Handle as _;

use serde::Serialize;

use crate::instance::Event;
use crate::state::{Failure, Runtime, invalid, lookup, new_handle, with_runtime};
use crate::structs::{c_str, check_chain, check_type, two_call};

/// A recognizer started for a session.
struct Recognizer {
    /// The session it listens for.
    session: u64,
    /// The application's phrases.
    dictionary: Vec<String>,
}

/// What the report says about speech.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SpeechSummary {
    /// The language of each xrInitializeRemotingSpeechMSFT, in order.
    pub languages: Vec<String>,
    /// The dictionary last given.
    pub dictionary: Vec<String>,
    /// What was recognised, as the dictionary spells it.
    pub recognized: Vec<String>,
    /// What the wearer said that was not recognised, and why.
    pub not_recognized: Vec<String>,
    /// Recognised texts the application fetched.
    pub fetched: Vec<String>,
}

/// The emulated recognizer.
#[derive(Default)]
pub struct Speech {
    /// The recognizer, once started.
    recognizer: Option<Recognizer>,
    /// Recognised texts by packet id, until the session ends.
    packets: HashMap<u64, (u64, String)>,
    /// What the report says.
    summary: SpeechSummary,
}

impl Speech {
    /// The report's summary.
    pub fn summary(&self) -> &SpeechSummary {
        &self.summary
    }

    /// Forgets what belongs to session `handle`, which is destroyed.
    pub fn forget_session(&mut self, handle: u64) {
        if self
            .recognizer
            .as_ref()
            .is_some_and(|recognizer| recognizer.session == handle)
        {
            self.recognizer = None;
        }
        self.packets.retain(|_, (session, _)| *session != handle);
    }

    /// The wearer said `words` while session `session` ran: the event of
    /// its recognition when the recognizer listens and knows the phrase.
    pub fn hear(&mut self, session: u64, words: &str) -> Option<Event> {
        let Some(recognizer) = self
            .recognizer
            .as_ref()
            .filter(|recognizer| recognizer.session == session)
        else {
            self.summary
                .not_recognized
                .push(format!("{words} (no recognizer started for the session)"));
            return None;
        };
        let Some(phrase) = recognizer
            .dictionary
            .iter()
            .find(|phrase| same_words(phrase, words))
        else {
            self.summary
                .not_recognized
                .push(format!("{words} (not in the dictionary)"));
            return None;
        };
        let packet_id = new_handle();
        self.packets.insert(packet_id, (session, phrase.clone()));
        self.summary.recognized.push(phrase.clone());
        Some(Event::SpeechRecognized { session, packet_id })
    }
}

/// Whether two phrases are the same words, whatever the case and spacing.
fn same_words(a: &str, b: &str) -> bool {
    let words = |text: &str| {
        text.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    words(a) == words(b)
}

/// XrEventDataRemotingSpeechRecognizerStateChangedMSFT for `state`.
pub fn recognizer_state_event(state: u32) -> EventDataRecognizerStateChanged {
    EventDataRecognizerStateChanged {
        ty: xr::StructureType::from_raw(structure_type::EVENT_DATA_RECOGNIZER_STATE_CHANGED),
        next: std::ptr::null_mut(),
        speech_recognizer_state: state,
        state_message: [0; MAX_STATE_MESSAGE_SIZE],
    }
}

/// XrEventDataRemotingSpeechRecognizedMSFT for `packet_id`, recognised
/// with high confidence.
pub fn recognized_event(packet_id: u64) -> EventDataRecognized {
    EventDataRecognized {
        ty: xr::StructureType::from_raw(structure_type::EVENT_DATA_RECOGNIZED),
        next: std::ptr::null_mut(),
        packet_id,
        confidence: holoterrain::xr::sys::speech::CONFIDENCE_HIGH,
        raw_confidence: 1.0,
    }
}

/// The language in `field`, which must be NUL-terminated within it.
fn language(field: &[c_char; MAX_LANGUAGE_NAME_SIZE]) -> Result<String, Failure> {
    let end = field.iter().position(|&c| c == 0).ok_or_else(|| {
        invalid(format!(
            "speechInitInfo.language has no NUL within its {MAX_LANGUAGE_NAME_SIZE} characters"
        ))
    })?;
    let bytes: Vec<u8> = field[..end].iter().map(|&c| c as u8).collect();
    let text =
        String::from_utf8(bytes).map_err(|_| invalid("speechInitInfo.language is not UTF-8"))?;
    if text.is_empty() {
        return Err(invalid("speechInitInfo.language is empty"));
    }
    Ok(text)
}

/// xrInitializeRemotingSpeechMSFT: starts the recognizer for the session.
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn initialize(
    session: xr::Session,
    init_info: *const SpeechInitInfo,
) -> xr::Result {
    with_runtime("xrInitializeRemotingSpeechMSFT", |runtime| {
        let handle = session.into_raw();
        let current = lookup(&runtime.sessions, handle, "XrSession")?;
        if current.lost {
            return Err(Failure::quiet(xr::Result::ERROR_SESSION_LOST));
        }
        // SAFETY: the application's pointer, NULL or valid.
        let info =
            unsafe { init_info.as_ref() }.ok_or_else(|| invalid("speechInitInfo is NULL"))?;
        check_type(
            info.ty,
            xr::StructureType::from_raw(structure_type::INIT_INFO),
            "speechInitInfo",
        )?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "speechInitInfo") }?;
        let language = language(&info.language)?;
        if info.grammar_file_size > 0 && info.grammar_file_content.is_null() {
            return Err(invalid(
                "speechInitInfo.grammarFileSize is not 0 but grammarFileContent is NULL",
            ));
        }
        if info.dictionary_entries_count == 0 || info.dictionary_entries.is_null() {
            return Err(invalid(
                "speechInitInfo needs at least one dictionary entry (dictionaryEntriesCount > 0)",
            ));
        }
        let mut dictionary = Vec::new();
        for index in 0..info.dictionary_entries_count as usize {
            // SAFETY: the application promises dictionaryEntriesCount strings.
            let entry = unsafe {
                c_str(
                    *info.dictionary_entries.add(index),
                    "speechInitInfo.dictionaryEntries[i]",
                )
            }?;
            dictionary.push(entry.to_owned());
        }
        let speech = &mut runtime.speech;
        speech.summary.languages.push(language);
        speech.summary.dictionary = dictionary.clone();
        speech.recognizer = Some(Recognizer {
            session: handle,
            dictionary,
        });
        for state in [recognizer_state::INITIALIZED, recognizer_state::STARTED] {
            runtime.events.push(Event::SpeechRecognizerState {
                session: handle,
                state,
            });
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRetrieveRemotingSpeechRecognizedTextMSFT: the two-call idiom over the
/// recognised text's bytes (no NUL).
///
/// # Safety
/// The arguments are the application's, as Microsoft's header defines them.
pub unsafe extern "system" fn retrieve_text(
    session: xr::Session,
    packet_id: u64,
    capacity: u32,
    count_output: *mut u32,
    data: *mut c_char,
) -> xr::Result {
    with_runtime(
        "xrRetrieveRemotingSpeechRecognizedTextMSFT",
        |runtime: &mut Runtime| {
            let handle = session.into_raw();
            lookup(&runtime.sessions, handle, "XrSession")?;
            let Some((owner, text)) = runtime.speech.packets.get(&packet_id).cloned() else {
                return Err(Failure::violation(
                    xr::Result::from_raw(PACKET_EXPIRED),
                    format!("packetId {packet_id:#x} was not handed out by a recognition event"),
                ));
            };
            if owner != handle {
                return Err(invalid(format!(
                    "packetId {packet_id:#x} belongs to another session"
                )));
            }
            let bytes: Vec<c_char> = text.bytes().map(|byte| byte as c_char).collect();
            // SAFETY: the application's pointers.
            let result = unsafe {
                two_call(
                    capacity,
                    count_output,
                    data,
                    &bytes,
                    "dataBytes",
                    |_| Ok(()),
                    |slot, value| *slot = *value,
                )
            }?;
            if capacity > 0 {
                runtime.speech.summary.fetched.push(text);
            }
            Ok(result)
        },
    )
}

/// The extension's functions by name, for xrGetInstanceProcAddr.
pub fn function(name: &str) -> Option<xr::pfn::VoidFunction> {
    crate::dispatch::table!(name,
        "xrInitializeRemotingSpeechMSFT" => initialize as InitializeFn,
        "xrRetrieveRemotingSpeechRecognizedTextMSFT" => retrieve_text as RetrieveTextFn,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(dictionary: &[&str]) -> Speech {
        Speech {
            recognizer: Some(Recognizer {
                session: 7,
                dictionary: dictionary.iter().map(|&phrase| phrase.to_owned()).collect(),
            }),
            ..Speech::default()
        }
    }

    #[test]
    fn a_phrase_of_the_dictionary_is_recognised_as_the_dictionary_spells_it() {
        let mut speech = started(&["New Terrain"]);
        let Some(Event::SpeechRecognized { session, packet_id }) = speech.hear(7, "new terrain")
        else {
            panic!("not recognised");
        };
        assert_eq!(session, 7);
        assert_eq!(speech.packets[&packet_id].1, "New Terrain");
        assert_eq!(speech.summary().recognized, ["New Terrain"]);
    }

    #[test]
    fn other_words_or_no_recognizer_are_not_recognised_and_say_why() {
        let mut speech = started(&["new terrain"]);
        assert_eq!(speech.hear(7, "bigger"), None);
        assert_eq!(speech.hear(8, "new terrain"), None);
        speech.forget_session(7);
        assert_eq!(speech.hear(7, "new terrain"), None);
        assert_eq!(
            speech.summary().not_recognized,
            [
                "bigger (not in the dictionary)",
                "new terrain (no recognizer started for the session)",
                "new terrain (no recognizer started for the session)"
            ]
        );
    }
}
