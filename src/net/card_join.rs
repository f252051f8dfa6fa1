//! Joining a session by seeing its printed card: a headset in no session that sees `holoterrain:CODE` finds that session's host on the local network and joins it, off the frame loop.
//!
//! Finding the host (DNS-SD, up to 10 s) and the handshake block, so they
//! run on a thread of their own while frames go on; the platform asks
//! [`CardJoin::finished`] each frame and, once joined, grows the host's
//! world in place of its own. Each code is tried once a run: a card of a
//! session nobody hosts costs one line, not a line a frame.
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

use super::code::ShareCode;
use super::end::Session;
use super::open;
use crate::app::Marker;
use crate::app::colocation::CARD_PREFIX;
use crate::app::log::LogStart;

/// A session joined by its card: the session, and the host's world to grow.
pub struct JoinedByCard {
    pub session: Session,
    pub start: LogStart,
}

/// Joining by card, for a headset in no session.
#[derive(Default)]
pub struct CardJoin {
    /// The join under way: the code, and where its thread answers.
    pending: Option<(String, Receiver<Result<JoinedByCard, String>>)>,
    /// The codes seen so far (each is tried once).
    tried: Vec<String>,
}

impl CardJoin {
    /// Looks at the printed codes the frame's input hands over: the first
    /// card of a session not tried yet starts joining it. The line to log
    /// when one does (or when its text is not a session's code).
    pub fn look(&mut self, markers: &[Marker]) -> Option<String> {
        if self.pending.is_some() {
            return None;
        }
        let text = markers.iter().find_map(|marker| {
            let code = marker.text.strip_prefix(CARD_PREFIX)?;
            (!self.tried.iter().any(|tried| tried == code)).then(|| code.to_owned())
        })?;
        self.tried.push(text.clone());
        let code = match ShareCode::parse(&text) {
            Ok(code) => code.to_string(),
            Err(error) => {
                return Some(format!(
                    "a card reads {CARD_PREFIX}{text}, which is not a session's code: {error}"
                ));
            }
        };
        let (sender, result) = mpsc::channel();
        let joining = code.clone();
        let spawned = thread::Builder::new()
            .name("share-card-join".into())
            .spawn(move || {
                let joined = match open::join(Some(&joining)) {
                    Ok(Some((session, start))) => Ok(JoinedByCard { session, start }),
                    Ok(None) => Err("nothing to join".to_owned()),
                    Err(error) => Err(error.to_string()),
                };
                let _ = sender.send(joined);
            });
        match spawned {
            Ok(_) => {
                self.pending = Some((code.clone(), result));
                Some(format!(
                    "saw the card of session {code}: looking for its host on the local network"
                ))
            }
            Err(error) => Some(format!("cannot join session {code} by its card: {error}")),
        }
    }

    /// The join under way, once it has finished: the session, or the line
    /// that says why not (and the headset goes on alone).
    pub fn finished(&mut self) -> Option<Result<JoinedByCard, String>> {
        let (code, result) = self.pending.as_ref()?;
        let outcome = match result.try_recv() {
            Ok(Ok(joined)) => Ok(joined),
            Ok(Err(why)) => Err(format!("cannot join session {code} by its card: {why}")),
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err(format!(
                "cannot join session {code} by its card: the joining thread ended"
            )),
        };
        self.pending = None;
        Some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Pose;

    fn card(text: &str) -> Marker {
        Marker {
            text: text.to_owned(),
            pose: Pose::IDENTITY,
            size_m: 0.07,
            last_seen_ns: 0,
        }
    }

    #[test]
    fn only_a_sessions_card_starts_a_join_and_each_code_once() {
        let mut joining = CardJoin::default();
        assert_eq!(joining.look(&[card("https://example.org")]), None);
        let line = joining.look(&[card("holoterrain:7-guitar")]).unwrap();
        assert!(line.contains("not a session's code"), "{line}");
        assert_eq!(
            joining.look(&[card("holoterrain:7-guitar")]),
            None,
            "said once"
        );
        assert!(joining.pending.is_none());
    }
}
