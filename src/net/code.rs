//! Session codes, `NUMBER-word-word` as magic-wormhole writes them: made from the OS's randomness, read back with one clear line when they are not one.
//!
//! The number is the nameplate: public, it names the session (it is part of
//! the handshake's identity, so a code for another session fails as a wrong
//! one does). The two words are the secret the peers prove to each other
//! with SPAKE2 (`super::handshake`). Words are drawn from the BIP-39
//! English list (2048 words of 3 to 8 lower-case letters, chosen to be
//! told apart when read aloud; shipped by the `bip39` crate, which is
//! licensed CC0-1.0, as is the list in the BIP-39 proposal), 11 bits each: 22 bits of secret, enough because
//! every guess costs an online handshake that the host slows down after a
//! failure. A code of the user's own (`--share CODE`) may use any
//! lower-case words, as long as guessing it takes no fewer tries than
//! guessing a made one ([`ShareCode::check_chosen`]).
use std::fmt;

use thiserror::Error;

/// Largest nameplate.
pub const MAX_NAMEPLATE: u32 = 9999;
/// Longest word of a code, letters.
pub const MAX_WORD_LEN: usize = 24;

/// A session code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareCode {
    nameplate: u32,
    words: [String; 2],
}

/// Why a text is not a session code.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("the share code `{text}` is not NUMBER-word-word (like 7-guitar-orbit): {problem}")]
pub struct CodeError {
    text: String,
    problem: String,
}

/// Why a code of the user's own is refused for hosting.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "the share code `{text}` is weaker than the ones holoterrain makes (two words of the {list_len}-word list, {list_len} x {list_len} possible secrets): {problem}; leave the code out (--share alone) to have one made"
)]
pub struct WeakCode {
    text: String,
    problem: String,
    list_len: usize,
}

/// Where the OS's randomness failed.
#[derive(Debug, Error)]
#[error("cannot make a share code: the operating system gave no randomness ({0})")]
pub struct NoRandomness(String);

impl ShareCode {
    /// A fresh code: nameplate 1 to 999, two words from the list, all from
    /// the operating system's random source.
    pub fn generate() -> Result<Self, NoRandomness> {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|error| NoRandomness(error.to_string()))?;
        let number = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let list = bip39::Language::English.word_list();
        // 2048 words: 11 bits pick one with no bias.
        let word = |bits: u16| list[(bits & 0x7ff) as usize].to_owned();
        Ok(ShareCode {
            // The nameplate is public: a slight bias in it costs nothing.
            nameplate: 1 + number % 999,
            words: [
                word(u16::from_le_bytes([bytes[4], bytes[5]])),
                word(u16::from_le_bytes([bytes[6], bytes[7]])),
            ],
        })
    }

    /// Reads `text` (surrounding white space ignored).
    pub fn parse(text: &str) -> Result<Self, CodeError> {
        let fail = |problem: &str| CodeError {
            text: text.to_owned(),
            problem: problem.to_owned(),
        };
        let parts: Vec<&str> = text.trim().split('-').collect();
        let [number, first, second] = parts[..] else {
            return Err(fail(&format!(
                "it has {} part(s) between dashes, not 3",
                parts.len()
            )));
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) || number.len() > 4 {
            return Err(fail(&format!(
                "the number must be 1 to {MAX_NAMEPLATE} in digits"
            )));
        }
        let nameplate: u32 = number.parse().map_err(|_| fail("the number is not one"))?;
        if nameplate == 0 {
            return Err(fail(&format!(
                "the number must be 1 to {MAX_NAMEPLATE} in digits"
            )));
        }
        for word in [first, second] {
            if word.len() < 2 || word.len() > MAX_WORD_LEN {
                return Err(fail(&format!(
                    "each word must be 2 to {MAX_WORD_LEN} letters"
                )));
            }
            if !word.bytes().all(|b| b.is_ascii_lowercase()) {
                return Err(fail("words are lower-case letters a to z only"));
            }
        }
        Ok(ShareCode {
            nameplate,
            words: [first.to_owned(), second.to_owned()],
        })
    }

    /// Whether this code, chosen by the user to host with, is as hard to
    /// guess as a made one: the secrets an attacker who knows how it was
    /// chosen must try are at least as many as a made code's 2048 x 2048.
    /// A word of the list counts as one of 2048, any other as one of 26ⁿ
    /// (its n letters); the same word twice counts once. Only a measure of
    /// the search, not of how people pick words: a made code is better.
    pub fn check_chosen(&self) -> Result<(), WeakCode> {
        let list = bip39::Language::English.word_list();
        let choices = |word: &str| -> f64 {
            if list.contains(&word) {
                list.len() as f64
            } else {
                26f64.powi(word.len() as i32)
            }
        };
        let weak = |problem: String| WeakCode {
            text: self.to_string(),
            problem,
            list_len: list.len(),
        };
        let [first, second] = &self.words;
        if first == second {
            return Err(weak("its two words are the same".into()));
        }
        let secrets = choices(first) * choices(second);
        let made = (list.len() * list.len()) as f64;
        if secrets < made {
            return Err(weak(format!(
                "its words allow about {secrets:.0} secrets (a word not on the list counts as 26 to the power of its letters)"
            )));
        }
        Ok(())
    }

    /// The public part.
    pub fn nameplate(&self) -> u32 {
        self.nameplate
    }

    /// The secret part, as SPAKE2's password: the words with their dash.
    pub fn password(&self) -> String {
        format!("{}-{}", self.words[0], self.words[1])
    }
}

impl fmt::Display for ShareCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.nameplate, self.words[0], self.words[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_codes_read_back_and_differ() {
        let codes: Vec<ShareCode> = (0..20).map(|_| ShareCode::generate().unwrap()).collect();
        for code in &codes {
            assert_eq!(ShareCode::parse(&code.to_string()).as_ref(), Ok(code));
            assert!((1..=999).contains(&code.nameplate()));
            let list = bip39::Language::English.word_list();
            assert!(code.words.iter().all(|word| list.contains(&word.as_str())));
        }
        let distinct: std::collections::HashSet<String> =
            codes.iter().map(ShareCode::to_string).collect();
        // 20 draws of 22 bits: a repeat is a one-in-20,000 event.
        assert!(distinct.len() >= 19, "{distinct:?}");
    }

    #[test]
    fn a_code_of_ones_own_reads() {
        let code = ShareCode::parse(" 7-guitar-orbit\n").unwrap();
        assert_eq!(code.nameplate(), 7);
        assert_eq!(code.password(), "guitar-orbit");
        assert_eq!(code.to_string(), "7-guitar-orbit");
    }

    #[test]
    fn a_chosen_code_weaker_than_a_made_one_is_refused_in_one_line() {
        for strong in [
            "7-guitar-orbit",
            "482-lonely-remind",
            "3-xqz-orbit",
            "9-xqz-plover",
        ] {
            let code = ShareCode::parse(strong).unwrap();
            assert_eq!(code.check_chosen(), Ok(()), "{strong}");
        }
        for (weak, problem) in [
            ("7-orbit-orbit", "the same"),
            ("7-ab-cd", "about 456976 secrets"),
            ("7-ab-orbit", "about 1384448 secrets"),
        ] {
            let error = ShareCode::parse(weak)
                .unwrap()
                .check_chosen()
                .unwrap_err()
                .to_string();
            assert!(error.contains(problem), "{weak}: {error}");
            assert!(error.starts_with(&format!("the share code `{weak}` is weaker")));
            assert!(!error.contains('\n'), "{error}");
        }
        // Made codes always pass.
        for _ in 0..20 {
            let made = ShareCode::generate().unwrap();
            if made.words[0] != made.words[1] {
                assert_eq!(made.check_chosen(), Ok(()));
            }
        }
    }

    #[test]
    fn what_is_not_a_code_is_one_line_naming_the_problem() {
        for (text, problem) in [
            ("7-guitar", "2 part(s)"),
            ("7-guitar-orbit-x", "4 part(s)"),
            ("x-guitar-orbit", "the number"),
            ("0-guitar-orbit", "the number"),
            ("12345-guitar-orbit", "the number"),
            ("+7-guitar-orbit", "the number"),
            ("7-Guitar-orbit", "lower-case"),
            ("7-gui@tar-orbit", "lower-case"),
            ("7-guitar-o", "2 to 24 letters"),
            ("", "1 part(s)"),
        ] {
            let error = ShareCode::parse(text).unwrap_err().to_string();
            assert!(error.contains(problem), "{text}: {error}");
            assert!(!error.contains('\n'), "{error}");
            assert!(error.starts_with("the share code `"), "{error}");
        }
    }
}
