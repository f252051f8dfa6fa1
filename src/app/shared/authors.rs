//! Who made each change the undo stack holds, as the host of a shared session keeps it, so that an "undo" is ordered only when the change on top is the speaker's own.
use crate::app::world::WorldEvent;
use crate::app::world::command::Origin;
use crate::app::world::undo::UNDO_DEPTH;

/// The makers of the changes undo and redo can take back, newest last, in
/// step with the world's undo stack (the host's wearer is
/// [`Origin::Local`], a peer [`Origin::Peer`]). A change older than the
/// session (the host's world before it shared) has no entry and counts
/// as the host's wearer's, who made it.
#[derive(Debug, Default, Clone)]
pub struct Authors {
    undo: Vec<Origin>,
    redo: Vec<Origin>,
}

impl Authors {
    /// Who made the change an undo would take back now.
    pub fn on_top(&self) -> Origin {
        self.undo.last().copied().unwrap_or(Origin::Local)
    }

    /// Whether an undo from `origin` may be ordered: the change on top is
    /// its own, so nobody's undo takes back someone else's work.
    pub fn may_undo(&self, origin: Origin) -> bool {
        self.on_top() == origin
    }

    /// Notes what a command from `origin` did: a new change (`changed`:
    /// the world noted what it replaced), or `event`'s undo or redo.
    pub fn note(&mut self, origin: Origin, changed: bool, event: Option<&WorldEvent>) {
        match event {
            Some(WorldEvent::Undid { undone: Some(_) }) => {
                let maker = self.undo.pop().unwrap_or(Origin::Local);
                self.redo.push(maker);
            }
            Some(WorldEvent::Redid { redone: Some(_) }) => {
                let maker = self.redo.pop().unwrap_or(origin);
                self.undo.push(maker);
            }
            _ if changed => {
                self.redo.clear();
                self.undo.push(origin);
                // The world forgets its oldest beyond the depth; so do we.
                if self.undo.len() > UNDO_DEPTH {
                    self.undo.remove(0);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::world::undo::Undone;

    const UNDID: WorldEvent = WorldEvent::Undid {
        undone: Some(Undone::Lift),
    };

    #[test]
    fn only_the_maker_of_the_change_on_top_may_undo_it_and_then_the_one_beneath() {
        let mut authors = Authors::default();
        assert!(
            authors.may_undo(Origin::Local),
            "before the session: the host's"
        );
        authors.note(Origin::Peer(1), true, None);
        authors.note(Origin::Local, true, None);
        assert!(!authors.may_undo(Origin::Peer(1)));
        assert!(authors.may_undo(Origin::Local));
        authors.note(Origin::Local, false, Some(&UNDID));
        assert!(authors.may_undo(Origin::Peer(1)));
        assert!(!authors.may_undo(Origin::Local));
        // A redo puts back the host's change: its maker's again.
        let redid = WorldEvent::Redid {
            redone: Some(Undone::Lift),
        };
        authors.note(Origin::Peer(1), false, Some(&redid));
        assert_eq!(authors.on_top(), Origin::Local);
    }

    #[test]
    fn a_command_that_changed_nothing_is_no_ones_change() {
        let mut authors = Authors::default();
        authors.note(Origin::Peer(2), true, None);
        authors.note(Origin::Local, false, None);
        assert_eq!(authors.on_top(), Origin::Peer(2));
    }
}
