//! The panel's layout, made from its groups: the title bar (the title, then Pin and Close), then each group under a rule and a small heading (the growth readout on the commands' heading line), its buttons flowing along a grid of cells, each as many cells wide as its label needs at the ramp's button size. Laid out in the panel's own plane, about its centre.
use super::actions::{Action, PanelGroup, panel_groups, title_bar_actions};
use super::layout::{BUTTON_GAP_M, BUTTON_HEIGHT_M};
use super::ramp::TextSize;

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

/// The panel laid out: its size, the title bar's height, its buttons, its
/// text and the rules between groups (their heights).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PanelLayout {
    pub(super) width: f32,
    pub(super) height: f32,
    pub(super) buttons: Vec<PanelButton>,
    pub(super) texts: Vec<PanelText>,
    pub(super) rules: Vec<f32>,
}

/// The width of the button that holds `action`'s label whole: as many
/// cells as it needs.
fn cells_for(action: Action) -> usize {
    let needs = TextSize::Medium.width_m(action.label()) + 2.0 * LABEL_PADDING_M;
    let cell = PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M;
    (((needs + BUTTON_GAP_M) / cell).ceil() as usize).clamp(1, PANEL_COLUMNS)
}

/// A button `cells` cells wide.
fn cells_width(cells: usize) -> f32 {
    cells as f32 * (PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M) - BUTTON_GAP_M
}

/// The panel with `title`, pinned or not, its groups as `in_session`
/// makes them, and `readout` beside the heading of the group that shows it.
pub(super) fn panel_layout(
    title: &str,
    pinned: bool,
    in_session: bool,
    readout: &str,
) -> PanelLayout {
    lay_out_groups(
        title,
        title_bar_actions(pinned),
        &panel_groups(in_session),
        readout,
    )
}

/// Lays out the title bar and `groups` top to bottom, from the top edge
/// down, then centres the whole on the panel's plane.
fn lay_out_groups(
    title: &str,
    title_bar: [Action; 2],
    groups: &[PanelGroup],
    readout: &str,
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
        if group.readout {
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
    panel
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
        for in_session in [false, true] {
            let panel = panel_layout("Terrain", false, in_session, "Grown 10%");
            let groups = panel_groups(in_session);
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
        }
    }

    #[test]
    fn pin_and_close_sit_in_the_title_bar_and_another_group_adds_its_rows() {
        let panel = panel_layout("Terrain", true, false, "");
        let title_bar: Vec<Action> = panel.buttons[..2].iter().map(|b| b.action).collect();
        assert_eq!(title_bar, [Action::ClosePanel, Action::UnpinPanel]);
        for button in &panel.buttons[..2] {
            assert!(button.y > panel.height / 2.0 - TITLE_HEIGHT_M);
        }
        let mut groups = panel_groups(false);
        groups.push(PanelGroup {
            heading: "More",
            readout: false,
            actions: vec![Action::Undo; PANEL_COLUMNS + 1],
        });
        let more = lay_out_groups("Terrain", title_bar_actions(false), &groups, "");
        let added = more.height - panel.height;
        let two_rows = 2.0 * (BUTTON_HEIGHT_M + BUTTON_GAP_M) + HEADING_HEIGHT_M + BUTTON_GAP_M;
        assert!((added - two_rows).abs() < 1e-6, "{added}");
    }
}
