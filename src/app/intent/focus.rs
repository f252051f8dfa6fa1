//! Which interactable holds each hand: one owner per hand, so the controls' buttons, the hologram and a sculpt surface compete for a hand in one place.
//!
//! A claim names what takes the hands and how strongly. It succeeds when
//! every claim in its way (on one of its hands, or on the same target)
//! is weaker; those are taken over. A two-hand turn and scale thus takes
//! over one hand's drag of the hologram, while nothing takes a hand from a
//! controller's grab; and a press that began on a button is the controls'
//! until it ends, whatever else wants that hand.
use crate::input::Hand;

/// What can hold a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The hologram, moved, turned or scaled.
    Hologram,
    /// The land's surface, sculpted.
    Surface,
    /// The controls (a button, or the panel's bar), pressed by that hand:
    /// each hand's press on them is its own.
    Controls(Hand),
}

/// How strongly a claim holds its hands: a stronger claim takes over weaker ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// One hand's pinch dragging.
    Drag,
    /// Both hands turning and scaling, or a controller's grab.
    Hold,
    /// A press on the controls.
    Press,
}

/// One hand's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Claim {
    target: Target,
    strength: Strength,
}

/// The owner of each hand, left then right.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Focus {
    owners: [Option<Claim>; 2],
}

impl Focus {
    /// Gives `hands` to `target` when every claim in the way is weaker
    /// than `strength` (taking those over); whether it did.
    pub fn claim(&mut self, hands: &[Hand], target: Target, strength: Strength) -> bool {
        let in_the_way = |(index, owner): (usize, &Option<Claim>)| {
            owner.filter(|claim| {
                claim.target == target || hands.iter().any(|hand| hand.index() == index)
            })
        };
        let free = self
            .owners
            .iter()
            .enumerate()
            .filter_map(in_the_way)
            .all(|claim| claim.strength < strength);
        if free {
            for owner in &mut self.owners {
                if owner.is_some_and(|claim| claim.target == target) {
                    *owner = None;
                }
            }
            for hand in hands {
                self.owners[hand.index()] = Some(Claim { target, strength });
            }
        }
        free
    }

    /// Frees every hand `target` holds.
    pub fn release(&mut self, target: Target) {
        for owner in &mut self.owners {
            if owner.is_some_and(|claim| claim.target == target) {
                *owner = None;
            }
        }
    }

    /// What holds `hand`, if anything.
    pub fn owner(&self, hand: Hand) -> Option<Target> {
        self.owners[hand.index()].map(|claim| claim.target)
    }

    /// Whether anything holds `target`.
    pub fn holds(&self, target: Target) -> bool {
        self.owners
            .iter()
            .flatten()
            .any(|claim| claim.target == target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stronger_claim_takes_over_and_a_weaker_or_equal_one_waits() {
        let mut focus = Focus::default();
        assert!(focus.claim(&[Hand::Left], Target::Hologram, Strength::Drag));
        assert!(
            !focus.claim(&[Hand::Right], Target::Hologram, Strength::Drag),
            "one drag at a time"
        );
        assert_eq!(focus.owner(Hand::Right), None);
        assert!(focus.claim(&Hand::BOTH, Target::Hologram, Strength::Hold));
        assert_eq!(focus.owner(Hand::Right), Some(Target::Hologram));
        assert!(!focus.claim(&[Hand::Left], Target::Hologram, Strength::Hold));
        focus.release(Target::Hologram);
        assert!(!focus.holds(Target::Hologram));
        assert_eq!(focus.owner(Hand::Left), None);
    }

    #[test]
    fn a_press_on_the_controls_is_that_hands_alone_and_outranks_the_hologram() {
        let mut focus = Focus::default();
        assert!(focus.claim(&[Hand::Left], Target::Hologram, Strength::Hold));
        // Each hand's press on the controls is its own: the right's does not
        // take the left's.
        assert!(focus.claim(
            &[Hand::Right],
            Target::Controls(Hand::Right),
            Strength::Press
        ));
        assert!(focus.claim(&[Hand::Left], Target::Controls(Hand::Left), Strength::Press));
        assert_eq!(
            focus.owner(Hand::Right),
            Some(Target::Controls(Hand::Right))
        );
        assert_eq!(focus.owner(Hand::Left), Some(Target::Controls(Hand::Left)));
        assert!(
            !focus.claim(&Hand::BOTH, Target::Hologram, Strength::Hold),
            "a two-hand turn waits for the buttons' presses to end"
        );
        focus.release(Target::Controls(Hand::Right));
        assert_eq!(focus.owner(Hand::Right), None);
        assert_eq!(focus.owner(Hand::Left), Some(Target::Controls(Hand::Left)));
    }
}
