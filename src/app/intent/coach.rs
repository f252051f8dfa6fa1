//! The hand coach: after some seconds with the hologram placed and nothing done, a ghost hand showing the air-tap; once the wearer has acted, the palm-up that brings the hand menu, until it has been opened; each goes once its gesture is done.
//!
//! Microsoft's hand coach guidance: show the gesture when the wearer has
//! not found it after a while, and hide it as soon as they do it.

/// How long the wearer does nothing, with the hologram placed, before a
/// coach shows.
pub const COACH_IDLE_NS: i64 = 6_000_000_000;

/// The gesture a coach shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coached {
    /// A pinch aimed at the hologram (or a select): it acts there.
    AirTap,
    /// A flat hand turned palm to the face: the hand menu.
    Palm,
}

impl Coached {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Coached::AirTap => "airtap",
            Coached::Palm => "palm",
        }
    }
}

/// What the wearer did this frame, as the coach sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Doings {
    /// The hologram is placed (nothing to coach before).
    pub placed: bool,
    /// A gesture acted: a reseed by a pinch, tap or select, a sculpt, a
    /// move, a grab, a button pressed.
    pub acted: bool,
    /// The hand menu shows.
    pub menu_open: bool,
    /// Something is under way that is not idling: a press held, a menu or
    /// the panel open, a phrase heard.
    pub busy: bool,
}

/// The coach's state between frames.
#[derive(Debug, Clone, Copy, Default)]
pub struct Coach {
    /// Since when the wearer has done nothing, while the hologram is placed.
    idle_since_ns: Option<i64>,
    /// The wearer has acted by a gesture once.
    acted: bool,
    /// The hand menu has shown once.
    menu_opened: bool,
    /// The coach showing, and since when.
    showing: Option<(Coached, i64)>,
}

impl Coach {
    /// Takes in the frame at `now_ns`: the coach that shows or goes
    /// (`true` for shown), if one does.
    pub fn update(&mut self, now_ns: i64, doings: Doings) -> Option<(Coached, bool)> {
        self.acted |= doings.acted;
        self.menu_opened |= doings.menu_open;
        let lesson = if !self.acted {
            Some(Coached::AirTap)
        } else if !self.menu_opened {
            Some(Coached::Palm)
        } else {
            None
        };
        if let Some((shown, _)) = self.showing
            && lesson != Some(shown)
        {
            self.showing = None;
            self.idle_since_ns = Some(now_ns);
            return Some((shown, false));
        }
        if !doings.placed {
            self.idle_since_ns = None;
            return None;
        }
        let doing = doings.acted || doings.menu_open || doings.busy;
        if doing || self.idle_since_ns.is_none() {
            self.idle_since_ns = Some(now_ns);
        }
        let idle_for = now_ns - self.idle_since_ns.unwrap_or(now_ns);
        match (self.showing, lesson) {
            (None, Some(lesson)) if idle_for >= COACH_IDLE_NS => {
                self.showing = Some((lesson, now_ns));
                Some((lesson, true))
            }
            _ => None,
        }
    }

    /// The coach showing, and for how many seconds it has at `now_ns`.
    pub fn showing(&self, now_ns: i64) -> Option<(Coached, f32)> {
        self.showing
            .map(|(what, since)| (what, (now_ns - since).max(0) as f32 * 1e-9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000_000;

    fn placed() -> Doings {
        Doings {
            placed: true,
            ..Doings::default()
        }
    }

    #[test]
    fn the_air_tap_shows_after_the_idle_time_goes_once_done_then_the_palm_until_the_menu_opens() {
        let mut coach = Coach::default();
        // Nothing before the hologram is placed, however long.
        assert_eq!(coach.update(0, Doings::default()), None);
        assert_eq!(coach.update(10 * SECOND, Doings::default()), None);
        assert_eq!(coach.update(11 * SECOND, placed()), None);
        // A press held at 14 s starts the wait again.
        let busy = Doings {
            busy: true,
            ..placed()
        };
        assert_eq!(coach.update(14 * SECOND, busy), None);
        assert_eq!(coach.update(19 * SECOND, placed()), None);
        assert_eq!(
            coach.update(20 * SECOND, placed()),
            Some((Coached::AirTap, true))
        );
        assert_eq!(coach.update(21 * SECOND, placed()), None);
        assert_eq!(
            coach.showing(21 * SECOND).map(|(what, _)| what),
            Some(Coached::AirTap)
        );
        let acted = Doings {
            acted: true,
            ..placed()
        };
        assert_eq!(
            coach.update(22 * SECOND, acted),
            Some((Coached::AirTap, false))
        );
        assert_eq!(coach.showing(22 * SECOND), None);
        // The palm after as long again, gone when the menu opens; then
        // nothing more, however long the wearer idles.
        assert_eq!(coach.update(27 * SECOND, placed()), None);
        assert_eq!(
            coach.update(28 * SECOND, placed()),
            Some((Coached::Palm, true))
        );
        let menu = Doings {
            menu_open: true,
            ..placed()
        };
        assert_eq!(
            coach.update(29 * SECOND, menu),
            Some((Coached::Palm, false))
        );
        assert_eq!(coach.update(60 * SECOND, placed()), None);
        assert_eq!(coach.showing(60 * SECOND), None);
    }
}
