//! Voice over Holographic Remoting (XR_MSFT_holographic_remoting_speech):
//! starting the Remoting Player's speech
//! recognizer with the app's phrases and button labels
//! (`VoiceCommand::dictionary`) for a session,
//! and fetching what it recognised.
//!
//! The declarations are `sys/speech.rs`'s.

use std::ffi::{CString, c_char};

use openxr as xr;

use crate::app::VoiceCommand;
use crate::xr::error::{XrError, xr_call};
use crate::xr::runtime::extension_fns::load;
use crate::xr::sys::speech::{
    InitializeFn, MAX_LANGUAGE_NAME_SIZE, RetrieveTextFn, SpeechInitInfo, fixed_string,
    structure_type,
};
use crate::xr::sys::ty;

/// The language the phrases are in: the player's recognizer listens for it.
pub const LANGUAGE: &str = "en-US";

/// The extension's functions.
#[derive(Clone, Copy)]
pub struct Speech {
    /// xrInitializeRemotingSpeechMSFT.
    initialize: InitializeFn,
    /// xrRetrieveRemotingSpeechRecognizedTextMSFT.
    retrieve_text: RetrieveTextFn,
}

impl Speech {
    /// The functions of `instance`, which must have the extension enabled.
    pub fn load(instance: &xr::Instance) -> Result<Self, XrError> {
        // SAFETY: the types are the header's for these names; the caller
        // enabled the extension.
        unsafe {
            Ok(Speech {
                initialize: load(instance, c"xrInitializeRemotingSpeechMSFT")?,
                retrieve_text: load(instance, c"xrRetrieveRemotingSpeechRecognizedTextMSFT")?,
            })
        }
    }

    /// Starts the player's recognizer for `session` with the app's phrases
    /// in [`LANGUAGE`] (no grammar file). Each new session needs it again.
    pub fn start(&self, session: xr::sys::Session) -> Result<(), XrError> {
        let phrases: Vec<CString> = VoiceCommand::dictionary()
            .into_iter()
            .filter_map(|phrase| CString::new(phrase).ok())
            .collect();
        let entries: Vec<*const c_char> = phrases.iter().map(|phrase| phrase.as_ptr()).collect();
        let mut language = [0 as c_char; MAX_LANGUAGE_NAME_SIZE];
        for (slot, byte) in language.iter_mut().zip(LANGUAGE.bytes()) {
            *slot = byte as c_char;
        }
        let info = SpeechInitInfo {
            ty: ty(structure_type::INIT_INFO),
            next: std::ptr::null(),
            language,
            grammar_file_size: 0,
            grammar_file_content: std::ptr::null_mut(),
            dictionary_entries_count: entries.len() as u32,
            dictionary_entries: entries.as_ptr(),
        };
        // SAFETY: the session is live; `info`, `entries` and `phrases` live
        // across the call.
        let result = unsafe { (self.initialize)(session, &info) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrInitializeRemotingSpeechMSFT")(result));
        }
        Ok(())
    }

    /// The text the player recognised as `packet_id`.
    pub fn recognized_text(
        &self,
        session: xr::sys::Session,
        packet_id: u64,
    ) -> Result<String, XrError> {
        let call = "xrRetrieveRemotingSpeechRecognizedTextMSFT";
        let mut count = 0u32;
        // SAFETY: the session is live; a capacity of 0 only asks for the size.
        let result = unsafe {
            (self.retrieve_text)(session, packet_id, 0, &mut count, std::ptr::null_mut())
        };
        if result.into_raw() < 0 {
            return Err(xr_call(call)(result));
        }
        let mut text = vec![0 as c_char; count as usize];
        // SAFETY: `text` has room for `count` bytes.
        let result = unsafe {
            (self.retrieve_text)(session, packet_id, count, &mut count, text.as_mut_ptr())
        };
        if result.into_raw() < 0 {
            return Err(xr_call(call)(result));
        }
        text.truncate(count as usize);
        Ok(fixed_string(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_fits_its_field_with_its_nul() {
        assert!(LANGUAGE.len() < MAX_LANGUAGE_NAME_SIZE);
    }
}
