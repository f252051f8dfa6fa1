//! The panel's layout, made from its groups: the title bar (the title, then Pin and Close), then each group under a rule and a small heading (the growth readout on the commands' heading line), its buttons flowing along a grid of cells, each as many cells wide as its label needs at the ramp's button size. Laid out in the panel's own plane, about its centre.
use super::actions::{Action, Page, PanelGroup, Readout, panel_groups, title_bar_actions};
use super::layout::{BUTTON_GAP_M, BUTTON_HEIGHT_M};
use super::ramp::TextSize;
use crate::app::voice::PHRASES;

/// A cell of the panel's grid, and so its narrowest button: five across
/// fit the wearer's view at arm's length (HoloLens 2 shows about 43°
/// across: 40 cm at 0.51 m).
pub const PANEL_BUTTON_WIDTH_M: f32 = 0.066;
/// Cells across the panel.
const PANEL_COLUMNS: usize = 5;
/// Room on each side of a label inside its button.
pub(super) const LABEL_PADDING_M: f32 = 0.003;
/// A heading's line: its small text and the room around it.
const HEADING_HEIGHT_M: f32 = 0.014;
/// The title bar: a button's height and half a gap over and under it.
pub(super) const TITLE_HEIGHT_M: f32 = BUTTON_HEIGHT_M + BUTTON_GAP_M;
/// How thick the rule over a group is.
pub(super) const RULE_M: f32 = 0.0015;

/// A button of the panel, in its plane: centre and width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PanelButton {
    pub(super) action: Action,
    pub(super) x: f32,
    pub(super) y: f32,
    pub(super) width: f32,
}

/// What a line of the panel's own text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextRole {
    /// The title, in the title bar.
    Title,
    /// A group's heading, or the readout beside one.
    Heading,
    /// What a save's row says of it.
    Save,
}

/// A line of the panel's own text, in its plane: its left edge, the
/// middle of its line, and its size.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PanelText {
    pub(super) text: String,
    pub(super) left: f32,
    pub(super) y: f32,
    pub(super) size: TextSize,
    pub(super) role: TextRole,
}

/// Where a save's picture shows, in the panel's plane: the save's row
/// (newest first), centre and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PanelPicture {
    pub(super) row: usize,
    pub(super) x: f32,
    pub(super) y: f32,
    pub(super) width: f32,
    pub(super) height: f32,
}

/// The panel laid out: its size, the title bar's height, its buttons, its
/// text, the rules between groups (their heights) and the saves' pictures.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PanelLayout {
    pub(super) width: f32,
    pub(super) height: f32,
    pub(super) buttons: Vec<PanelButton>,
    pub(super) texts: Vec<PanelText>,
    pub(super) rules: Vec<f32>,
    pub(super) pictures: Vec<PanelPicture>,
}

/// What the panel's heading lines and rows say besides its buttons.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PanelWords<'a> {
    /// How far the terrain has grown, and how fast.
    pub(super) growth: &'a str,
    /// Which moment of the history shows.
    pub(super) moment: &'a str,
    /// Each save's line, newest first.
    pub(super) saves: &'a [String],
}

/// The width of the button that holds `action`'s label whole: as many
/// cells as it needs (the time slider: the panel's width).
fn cells_for(action: Action) -> usize {
    if action == Action::TimeSlider {
        return PANEL_COLUMNS;
    }
    let needs = TextSize::Medium.width_m(action.label()) + 2.0 * LABEL_PADDING_M;
    let cell = PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M;
    (((needs + BUTTON_GAP_M) / cell).ceil() as usize).clamp(1, PANEL_COLUMNS)
}

/// A button `cells` cells wide.
fn cells_width(cells: usize) -> f32 {
    cells as f32 * (PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M) - BUTTON_GAP_M
}

/// The panel on `page`, pinned or not, its groups as `in_session` makes
/// them, with `words` on its heading lines and save rows.
pub(super) fn panel_layout(
    page: Page,
    pinned: bool,
    in_session: bool,
    words: PanelWords,
) -> PanelLayout {
    let mut panel = lay_out_groups(
        page.title(),
        title_bar_actions(pinned),
        &panel_groups(page, in_session, words.saves.len()),
        words,
    );
    if page == Page::Terrain {
        add_phrases(&mut panel);
    }
    panel
}

/// Adds, under the last group, the phrases always heard (whatever shows),
/// in as many lines as the panel's width needs: "Say: new terrain,
/// bigger, …". The panel grows by those lines, less than a row of buttons.
fn add_phrases(panel: &mut PanelLayout) {
    // The buttons' size, not the headings': the panel's bottom edge is the
    // farthest from the eyes, where the small size would fall under 0.65°.
    let size = TextSize::Medium;
    let spacing = size.line_m() * 1.15;
    let room = panel.width - 4.0 * BUTTON_GAP_M;
    let mut lines: Vec<String> = vec!["Say:".into()];
    for (index, (phrase, _)) in PHRASES.iter().enumerate() {
        let last = lines.len() - 1;
        let comma = if index + 1 < PHRASES.len() { "," } else { "" };
        let longer = format!("{} {phrase}{comma}", lines[last]);
        if size.width_m(&longer) <= room {
            lines[last] = longer;
        } else {
            lines.push(format!("{phrase}{comma}"));
        }
    }
    let grown = lines.len() as f32 * spacing + BUTTON_GAP_M;
    let bottom = -panel.height / 2.0;
    // The panel stays centred on its plane: what was there moves up by
    // half the lines, and they fill the bottom.
    for button in &mut panel.buttons {
        button.y += grown / 2.0;
    }
    for text in &mut panel.texts {
        text.y += grown / 2.0;
    }
    for rule in &mut panel.rules {
        *rule += grown / 2.0;
    }
    for picture in &mut panel.pictures {
        picture.y += grown / 2.0;
    }
    let left = -panel.width / 2.0 + 2.0 * BUTTON_GAP_M;
    for (row, line) in lines.into_iter().enumerate() {
        panel.texts.push(PanelText {
            text: line,
            left,
            y: bottom + grown / 2.0 - spacing * (row as f32 + 0.5),
            size,
            role: TextRole::Heading,
        });
    }
    panel.height += grown;
}

/// Lays out the title bar and `groups` top to bottom, from the top edge
/// down, then centres the whole on the panel's plane.
fn lay_out_groups(
    title: &str,
    title_bar: [Action; 2],
    groups: &[PanelGroup],
    words: PanelWords,
) -> PanelLayout {
    let width = PANEL_COLUMNS as f32 * (PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M) + BUTTON_GAP_M;
    let (left_edge, right_edge) = (-width / 2.0, width / 2.0);
    let mut panel = PanelLayout {
        width,
        ..PanelLayout::default()
    };
    let title_y = -TITLE_HEIGHT_M / 2.0;
    panel.texts.push(PanelText {
        text: title.into(),
        left: left_edge + 2.0 * BUTTON_GAP_M,
        y: title_y,
        size: TextSize::Large,
        role: TextRole::Title,
    });
    let mut right = right_edge - BUTTON_GAP_M;
    for action in title_bar.into_iter().rev() {
        let needs = TextSize::Medium.width_m(action.label()) + 2.0 * LABEL_PADDING_M;
        let button_width = needs.max(BUTTON_HEIGHT_M);
        panel.buttons.push(PanelButton {
            action,
            x: right - button_width / 2.0,
            y: title_y,
            width: button_width,
        });
        right -= button_width + BUTTON_GAP_M;
    }
    let mut y = -TITLE_HEIGHT_M;
    for (index, group) in groups.iter().enumerate() {
        if index > 0 {
            y -= BUTTON_GAP_M;
            panel.rules.push(y);
        }
        y -= HEADING_HEIGHT_M;
        let heading_y = y + HEADING_HEIGHT_M / 2.0;
        panel.texts.push(PanelText {
            text: group.heading.into(),
            left: left_edge + 2.0 * BUTTON_GAP_M,
            y: heading_y,
            size: TextSize::Small,
            role: TextRole::Heading,
        });
        let readout = match group.readout {
            Readout::None => None,
            Readout::Growth => Some(words.growth),
            Readout::Moment => Some(words.moment),
        };
        if let Some(readout) = readout {
            panel.texts.push(PanelText {
                text: readout.into(),
                left: right_edge - 2.0 * BUTTON_GAP_M - TextSize::Small.width_m(readout),
                y: heading_y,
                size: TextSize::Small,
                role: TextRole::Heading,
            });
        }
        let mut column = PANEL_COLUMNS;
        for &action in &group.actions {
            let cells = cells_for(action);
            if column + cells > PANEL_COLUMNS {
                column = 0;
                y -= BUTTON_HEIGHT_M + BUTTON_GAP_M;
            }
            if let Action::OpenSave(row) = action {
                // A row of its own: the picture and the save's line, then
                // its button at the right.
                if column > 0 {
                    y -= BUTTON_HEIGHT_M + BUTTON_GAP_M;
                }
                save_row(&mut panel, row, y, words.saves.get(row));
                column = PANEL_COLUMNS - cells;
            }
            let left =
                left_edge + BUTTON_GAP_M + column as f32 * (PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M);
            panel.buttons.push(PanelButton {
                action,
                x: left + cells_width(cells) / 2.0,
                y: y + BUTTON_HEIGHT_M / 2.0,
                width: cells_width(cells),
            });
            column += cells;
        }
    }
    panel.height = BUTTON_GAP_M - y;
    let to_centre = panel.height / 2.0;
    for button in &mut panel.buttons {
        button.y += to_centre;
    }
    for text in &mut panel.texts {
        text.y += to_centre;
    }
    for rule in &mut panel.rules {
        *rule += to_centre;
    }
    for picture in &mut panel.pictures {
        picture.y += to_centre;
    }
    panel
}

/// The picture and the line of the save on `row`, on the panel's row whose
/// bottom is at `y`.
fn save_row(panel: &mut PanelLayout, row: usize, y: f32, line: Option<&String>) {
    let left_edge = -panel.width / 2.0;
    // A 3:2 picture, as the pictures a save keeps are.
    let (height, width) = (BUTTON_HEIGHT_M, BUTTON_HEIGHT_M * 1.5);
    let centre_y = y + BUTTON_HEIGHT_M / 2.0;
    panel.pictures.push(PanelPicture {
        row,
        x: left_edge + BUTTON_GAP_M + width / 2.0,
        y: centre_y,
        width,
        height,
    });
    panel.texts.push(PanelText {
        text: line.cloned().unwrap_or_default(),
        left: left_edge + 3.0 * BUTTON_GAP_M + width,
        y: centre_y,
        size: TextSize::Small,
        role: TextRole::Save,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(panel: &PanelLayout, button: &PanelButton) -> bool {
        let (half_w, half_h) = (button.width / 2.0, BUTTON_HEIGHT_M / 2.0);
        button.x - half_w >= -panel.width / 2.0 - 1e-6
            && button.x + half_w <= panel.width / 2.0 + 1e-6
            && button.y - half_h >= -panel.height / 2.0 - 1e-6
            && button.y + half_h <= panel.height / 2.0 + 1e-6
    }

    fn overlap(a: &PanelButton, b: &PanelButton) -> bool {
        (a.x - b.x).abs() < (a.width + b.width) / 2.0 - 1e-6
            && (a.y - b.y).abs() < BUTTON_HEIGHT_M - 1e-6
    }

    #[test]
    fn every_group_lies_under_its_heading_and_its_buttons_do_not_overlap() {
        let saves = vec!["save-002 Mesas".to_string(), "save-001 Demo".to_string()];
        let words = PanelWords {
            growth: "Grown 10%",
            moment: "Now",
            saves: &saves,
        };
        for (page, in_session) in [
            (Page::Terrain, false),
            (Page::Terrain, true),
            (Page::History, false),
        ] {
            let panel = panel_layout(page, false, in_session, words);
            let groups = panel_groups(page, in_session, saves.len());
            assert_eq!(panel.rules.len(), groups.len() - 1);
            let headings: Vec<&PanelText> = panel
                .texts
                .iter()
                .filter(|text| text.role == TextRole::Heading)
                .collect();
            for (buttons, group) in panel.buttons[2..].iter().zip(
                groups
                    .iter()
                    .flat_map(|group| group.actions.iter().map(move |&action| (group, action))),
            ) {
                assert_eq!(buttons.action, group.1);
                let heading = headings
                    .iter()
                    .find(|text| text.text == group.0.heading)
                    .unwrap();
                assert!(
                    buttons.y < heading.y,
                    "{:?} under {}",
                    buttons.action,
                    heading.text
                );
            }
            for (index, a) in panel.buttons.iter().enumerate() {
                assert!(inside(&panel, a), "{a:?}");
                for b in &panel.buttons[index + 1..] {
                    assert!(!overlap(a, b), "{a:?} {b:?}");
                }
                let label = TextSize::Medium.width_m(a.action.label());
                assert!(label + 2.0 * LABEL_PADDING_M <= a.width + 1e-6, "{a:?}");
            }
            // Each save's picture and line sit on its row, left of its button.
            let rows = if page == Page::History {
                saves.len()
            } else {
                0
            };
            assert_eq!(panel.pictures.len(), rows);
            for picture in &panel.pictures {
                let open = panel
                    .buttons
                    .iter()
                    .find(|b| b.action == Action::OpenSave(picture.row))
                    .unwrap();
                assert!((open.y - picture.y).abs() < 1e-6);
                assert!(picture.x + picture.width / 2.0 < open.x - open.width / 2.0);
                let line = panel
                    .texts
                    .iter()
                    .find(|text| text.text == saves[picture.row])
                    .unwrap();
                assert!(line.left > picture.x && (line.y - picture.y).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn the_time_slider_spans_the_panel() {
        let panel = panel_layout(Page::History, false, false, PanelWords::default());
        let slider = panel
            .buttons
            .iter()
            .find(|b| b.action == Action::TimeSlider)
            .unwrap();
        assert!((slider.width - cells_width(PANEL_COLUMNS)).abs() < 1e-6);
        assert!(
            !panel
                .buttons
                .iter()
                .any(|b| matches!(b.action, Action::OpenSave(_)))
        );
    }

    #[test]
    fn pin_and_close_sit_in_the_title_bar_and_another_group_adds_its_rows() {
        let panel = panel_layout(Page::Terrain, true, false, PanelWords::default());
        let title_bar: Vec<Action> = panel.buttons[..2].iter().map(|b| b.action).collect();
        assert_eq!(title_bar, [Action::ClosePanel, Action::UnpinPanel]);
        for button in &panel.buttons[..2] {
            assert!(button.y > panel.height / 2.0 - TITLE_HEIGHT_M);
        }
        let mut groups = panel_groups(Page::Terrain, false, 0);
        groups.push(PanelGroup {
            heading: "More",
            readout: Readout::None,
            actions: vec![Action::Undo; PANEL_COLUMNS + 1],
        });
        let more = lay_out_groups(
            "Terrain",
            title_bar_actions(false),
            &groups,
            PanelWords::default(),
        );
        let plain = lay_out_groups(
            "Terrain",
            title_bar_actions(false),
            &panel_groups(Page::Terrain, false, 0),
            PanelWords::default(),
        );
        let added = more.height - plain.height;
        let two_rows = 2.0 * (BUTTON_HEIGHT_M + BUTTON_GAP_M) + HEADING_HEIGHT_M + BUTTON_GAP_M;
        assert!((added - two_rows).abs() < 1e-6, "{added}");
    }

    #[test]
    fn the_terrain_page_lists_every_phrase_always_heard_under_its_buttons_in_less_than_a_row() {
        let panel = panel_layout(Page::Terrain, false, false, PanelWords::default());
        let plain = lay_out_groups(
            "Terrain",
            title_bar_actions(false),
            &panel_groups(Page::Terrain, false, 0),
            PanelWords::default(),
        );
        let lines: Vec<&PanelText> = panel.texts[plain.texts.len()..].iter().collect();
        assert!(lines[0].text.starts_with("Say: new terrain,"), "{lines:?}");
        let said: String = lines
            .iter()
            .map(|line| line.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        for (phrase, _) in PHRASES {
            assert!(said.contains(phrase), "{phrase} in {said}");
        }
        let lowest_button = panel
            .buttons
            .iter()
            .map(|button| button.y - BUTTON_HEIGHT_M / 2.0)
            .fold(f32::MAX, f32::min);
        for line in &lines {
            assert!(line.left + line.size.width_m(&line.text) <= panel.width / 2.0);
            assert!(
                line.y + HEADING_HEIGHT_M / 2.0 <= lowest_button + 1e-6,
                "{line:?}"
            );
            assert!(line.y - HEADING_HEIGHT_M / 2.0 >= -panel.height / 2.0 - 1e-6);
        }
        let grown = panel.height - plain.height;
        assert!(
            grown > 0.0 && grown < BUTTON_HEIGHT_M + BUTTON_GAP_M,
            "{grown}"
        );
        // The history page has its own words.
        let history = panel_layout(Page::History, false, false, PanelWords::default());
        assert!(
            history
                .texts
                .iter()
                .all(|text| !text.text.starts_with("Say"))
        );
    }
}
