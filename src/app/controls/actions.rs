//! What the buttons do: each one's action, its label and what the report says it did, and the buttons each menu shows.
use crate::app::world::growth::{MAX_ITERATIONS_PER_SECOND, MIN_ITERATIONS_PER_SECOND};
use crate::terrain::recipe::{BuiltInName, Recipe};

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A new terrain from the next seed.
    NewTerrain,
    /// Open the landscapes panel, or bring it back in front.
    Landscapes,
    /// Stop growth where it stands.
    PauseGrowth,
    /// Let it go on.
    ResumeGrowth,
    /// Put the hologram onto the surface the gaze hits.
    PlaceHere,
    /// Host a shared session from here, with a new code.
    ShareSession,
    /// Grow this built-in landscape from the next seed.
    Landscape(BuiltInName),
    /// Grow at half the speed.
    Slower,
    /// Grow at twice the speed.
    Faster,
    /// Start the recipe's erosion now.
    Weather,
    /// Take back the last terrain command.
    Undo,
    /// Do again what the last undo took back.
    Redo,
    /// Draw the contour lines, or stop drawing them.
    Contours,
    /// Draw the land a step taller than now.
    Taller,
    /// Draw the land a step flatter than now.
    Flatter,
    /// Keep the terrain in a folder of its own.
    Save,
    /// Keep the panel where it is.
    PinPanel,
    /// Let the panel follow the head again.
    UnpinPanel,
    /// Hide the panel.
    ClosePanel,
    /// End this headset's part in the shared session it is in.
    LeaveSession,
    /// Turn the panel to its history page (the time slider and the saves).
    HistoryPage,
    /// Turn the panel back to its terrain page.
    TerrainPage,
    /// Show the moment of the history the slider is pressed at.
    TimeSlider,
    /// Show the moment before the last change before the one shown.
    Back,
    /// Show the moment after the next change.
    Forward,
    /// Come back to now from an earlier moment.
    Now,
    /// Open the save on row `n` of the saves, newest first, from 0.
    OpenSave(usize),
}

/// Rows of saves the history page shows, newest first.
pub const SAVE_ROWS: usize = 4;

impl Action {
    /// What its button says.
    pub fn label(self) -> &'static str {
        match self {
            Action::NewTerrain => "New terrain",
            Action::Landscapes => "Landscapes",
            Action::PauseGrowth => "Pause growth",
            Action::ResumeGrowth => "Resume growth",
            Action::PlaceHere => "Place here",
            Action::ShareSession => "Share session",
            Action::Landscape(name) => landscape_label(name),
            Action::Slower => "Slower",
            Action::Faster => "Faster",
            Action::Weather => "Weather",
            Action::Undo => "Undo",
            Action::Redo => "Redo",
            Action::Contours => "Contours",
            Action::Taller => "Taller",
            Action::Flatter => "Flatter",
            Action::Save => "Save",
            // One toggle: its lit bar, not its words, says which it is.
            Action::PinPanel | Action::UnpinPanel => "Pin",
            Action::ClosePanel => "Close",
            Action::LeaveSession => "Leave session",
            Action::HistoryPage => "History",
            Action::TerrainPage => "Terrain",
            Action::TimeSlider => "Time",
            Action::Back => "Back",
            Action::Forward => "Forward",
            Action::Now => "Now",
            Action::OpenSave(row) => OPEN_LABELS.get(row).copied().unwrap_or("Open"),
        }
    }

    /// What it did, as the report's `did` names it.
    pub fn did(self) -> &'static str {
        match self {
            Action::NewTerrain => "reseed",
            Action::Landscapes => "open panel",
            Action::PauseGrowth => "pause",
            Action::ResumeGrowth => "resume",
            Action::PlaceHere => "place",
            Action::ShareSession => "share",
            Action::Landscape(_) => "landscape",
            Action::Slower | Action::Faster => "speed",
            Action::Weather => "weather",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Contours => "contours",
            Action::Taller | Action::Flatter => "exaggerate",
            Action::Save => "save",
            Action::PinPanel => "pin panel",
            Action::UnpinPanel => "unpin panel",
            Action::ClosePanel => "close panel",
            Action::LeaveSession => "leave session",
            Action::HistoryPage | Action::TerrainPage => "turn page",
            Action::TimeSlider | Action::Back | Action::Forward | Action::Now => "scrub",
            Action::OpenSave(_) => "open",
        }
    }

    /// The growth rate after this action from `rate` (only Slower and Faster change it).
    pub fn rate_after(self, rate: u32) -> u32 {
        match self {
            Action::Slower => (rate / 2).max(MIN_ITERATIONS_PER_SECOND),
            Action::Faster => rate.saturating_mul(2).min(MAX_ITERATIONS_PER_SECOND),
            _ => rate,
        }
    }
}

/// What the saves' Open buttons say, row by row (said aloud, each is one).
const OPEN_LABELS: [&str; SAVE_ROWS] = ["Open 1", "Open 2", "Open 3", "Open 4"];

/// Every label a button can ever show, from the buttons themselves: what
/// a script's `press` may name and a speech recognizer listens for.
pub fn every_label() -> Vec<&'static str> {
    let panel = [Page::Terrain, Page::History]
        .into_iter()
        .flat_map(|page| {
            [false, true]
                .into_iter()
                .flat_map(move |in_session| panel_groups(page, in_session, SAVE_ROWS))
        })
        .flat_map(|group| group.actions);
    let mut labels: Vec<&'static str> = hand_menu_actions(false, false)
        .chain(hand_menu_actions(true, true))
        .chain(title_bar_actions(false))
        .chain(title_bar_actions(true))
        .chain(panel)
        .map(Action::label)
        .collect();
    let mut seen = Vec::new();
    labels.retain(|label| {
        let new = !seen.contains(label);
        seen.push(*label);
        new
    });
    labels
}

/// Whether `words` say `label`: the same words, in any case and spacing.
pub fn says(words: &str, label: &str) -> bool {
    words
        .split_whitespace()
        .map(str::to_lowercase)
        .eq(label.split_whitespace().map(str::to_lowercase))
}

/// What a built-in landscape's button says: plain words a wearer would
/// say aloud; the recipe keeps its file name (`--recipe`, the command log).
pub fn landscape_label(name: BuiltInName) -> &'static str {
    match name.as_str() {
        "demo" => "Demo",
        "ridges" => "Ridges",
        "mesas" => "Mesas",
        "highlands" => "Highlands",
        "ranges" => "Ranges",
        "islands" => "Islands",
        "hillocks" => "Hills",
        "summits" => "Peaks",
        "valleys" => "Valleys",
        "badlands" => "Badlands",
        "cordillera" => "Mountains",
        "uplands" => "Uplands",
        // A recipe added without a label of its own shows its name.
        other => other,
    }
}

/// The hand menu's buttons, in reading order: "Share session" only while
/// the headset is in no session.
pub(super) fn hand_menu_actions(
    paused: bool,
    in_session: bool,
) -> impl ExactSizeIterator<Item = Action> {
    let all = [
        Action::NewTerrain,
        Action::Landscapes,
        if paused {
            Action::ResumeGrowth
        } else {
            Action::PauseGrowth
        },
        Action::PlaceHere,
        Action::ShareSession,
    ];
    // Without allocating: the menu is laid out every frame.
    all.into_iter().take(if in_session { 4 } else { 5 })
}

/// The buttons in the panel's title bar, left to right.
pub(super) fn title_bar_actions(pinned: bool) -> [Action; 2] {
    [
        if pinned {
            Action::UnpinPanel
        } else {
            Action::PinPanel
        },
        Action::ClosePanel,
    ]
}

/// The panel's pages: one shows at a time, so that the panel stays
/// within the wearer's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Page {
    /// The landscapes and the commands.
    #[default]
    Terrain,
    /// The time slider and the saves.
    History,
}

impl Page {
    /// The panel's title on this page.
    pub fn title(self) -> &'static str {
        match self {
            Page::Terrain => "Terrain",
            Page::History => "History",
        }
    }
}

/// What a group's heading line carries besides its heading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Readout {
    /// Nothing.
    None,
    /// How far the terrain has grown, and how fast.
    Growth,
    /// Which moment of the history shows.
    Moment,
}

/// One group of the panel's buttons, under its heading.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PanelGroup {
    /// The small heading over it.
    pub(super) heading: &'static str,
    /// What shares its heading's line.
    pub(super) readout: Readout,
    /// Its buttons, in reading order.
    pub(super) actions: Vec<Action>,
}

/// The groups of `page`, top to bottom. The terrain page: the landscapes,
/// the commands, and while in a shared session, the session. The history
/// page: the time slider and its steps, then one row for each of the
/// `saves` newest saves (at most [`SAVE_ROWS`]), then the way back.
pub(super) fn panel_groups(page: Page, in_session: bool, saves: usize) -> Vec<PanelGroup> {
    if page == Page::History {
        return vec![
            PanelGroup {
                heading: "Time",
                readout: Readout::Moment,
                actions: vec![
                    Action::TimeSlider,
                    Action::Back,
                    Action::Forward,
                    Action::Now,
                ],
            },
            PanelGroup {
                heading: "Saves, newest first",
                readout: Readout::None,
                actions: (0..saves.min(SAVE_ROWS)).map(Action::OpenSave).collect(),
            },
            PanelGroup {
                heading: "Pages",
                readout: Readout::None,
                actions: vec![Action::TerrainPage],
            },
        ];
    }
    let mut groups = vec![
        PanelGroup {
            heading: "Landscapes",
            readout: Readout::None,
            actions: Recipe::built_in_names()
                .filter_map(BuiltInName::new)
                .map(Action::Landscape)
                .collect(),
        },
        PanelGroup {
            heading: "Commands",
            readout: Readout::Growth,
            actions: vec![
                Action::Slower,
                Action::Faster,
                Action::Weather,
                Action::Undo,
                Action::Redo,
                Action::Contours,
                Action::Taller,
                Action::Flatter,
                Action::Save,
                Action::HistoryPage,
            ],
        },
    ];
    if in_session {
        groups.push(PanelGroup {
            heading: "Shared session",
            readout: Readout::None,
            actions: vec![Action::LeaveSession],
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_is_listed_once_and_buttons_are_big_enough_to_touch() {
        let labels = every_label();
        for label in [
            "New terrain",
            "Resume growth",
            "Pin",
            "Islands",
            "Mountains",
            "Hills",
            "Leave session",
            "Save",
        ] {
            assert!(labels.contains(&label), "{label}");
        }
        let mut sorted = labels.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), labels.len());
    }

    #[test]
    fn every_built_in_landscape_has_a_plain_label_of_its_own_and_keeps_its_name() {
        let names: Vec<BuiltInName> = Recipe::built_in_names()
            .filter_map(BuiltInName::new)
            .collect();
        let labels: Vec<&str> = names.iter().map(|&name| landscape_label(name)).collect();
        let mountains = BuiltInName::new("cordillera").unwrap();
        assert_eq!(landscape_label(mountains), "Mountains");
        assert_eq!(Action::Landscape(mountains).label(), "Mountains");
        assert_eq!(mountains.as_str(), "cordillera");
        assert_eq!(
            landscape_label(BuiltInName::new("hillocks").unwrap()),
            "Hills"
        );
        let mut distinct = labels.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{labels:?}");
        for label in labels {
            assert_eq!(label.split_whitespace().count(), 1, "{label}");
            assert!(every_label().contains(&label), "{label}");
        }
    }

    #[test]
    fn speed_halves_and_doubles_within_its_limits() {
        assert_eq!(Action::Faster.rate_after(60), 120);
        assert_eq!(
            Action::Faster.rate_after(MAX_ITERATIONS_PER_SECOND),
            MAX_ITERATIONS_PER_SECOND
        );
        assert_eq!(Action::Slower.rate_after(60), 30);
        assert_eq!(Action::Slower.rate_after(20), MIN_ITERATIONS_PER_SECOND);
    }
}
