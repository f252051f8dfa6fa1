//! Interaction: turns a frame's hands, gaze and voice into commands — the gesture recognisers, what each hand aims at, the manipulation in progress and its preview — with one owner per hand ([`Focus`]).
//!
//! Placement commands apply as they are issued, so each rule sees the one
//! before it applied; reseeds wait in the frame's [`Commands`], which keeps
//! the first asked for and applies it last.
pub mod aim;
mod buttons;
pub mod coach;
pub mod feedback;
pub mod focus;
pub mod manipulation;
mod pointing;
pub mod stroke;
use glam::{Vec2, Vec3};

use self::aim::{AimedAt, Landing};
use self::coach::{Coach, Coached, Doings};
use self::feedback::HoldSounds;
use self::focus::{Focus, Strength, Target};
use self::manipulation::Manipulation;
use self::pointing::{HandHits, Pointing};
use self::stroke::Stroke;
use crate::app::controls::{Controls, Cursor, HandState, Shows, UiPress, draw_coach};
use crate::app::frame::{AppEvent, FrameInput, HandInput, Kept, OwnedSurfaceMarks, OwnedUiLayer};
use crate::app::voice::VoiceCommand;
use crate::app::world::command::{Command, ReseedCause};
use crate::app::world::placement::{self, HOLOGRAM_SIZE_M, Placement, PlacementCause};
use crate::app::world::surfaces::{self, Surface};
use crate::app::world::{PlacementId, World};
use crate::input::hand::{PALM, joints_are_finite};
use crate::input::{
    Hand, HoldEvent, HoldRecognizer, PinchTracker, Pose, Press, SelectRecognizer, TapRecognizer,
};
use crate::terrain::sculpt::Edit;

/// The factor "bigger" scales the hologram by ("smaller" by its inverse).
pub const VOICE_SCALE_STEP: f32 = 1.25;

/// How long after the first head pose the app waits for a kept placement
/// the platform is still locating, before it places the hologram afresh.
pub const KEPT_WAIT_NS: i64 = 2_000_000_000;
/// Where a frame's commands go: placement commands apply at once, a reseed
/// waits for the end of the frame, and only the first reseed asked for in
/// a frame happens (left hand before right, air-tap before tap before
/// select, then voice, in the order interaction asks).
pub trait Commands {
    /// The world as the commands so far left it.
    fn world(&self) -> &World;
    /// Issues `command`.
    fn issue(&mut self, command: Command);
    /// Tells the platform of something that is no command (a button
    /// pressed, a save asked for).
    fn tell(&mut self, event: AppEvent);
}

/// What presses on the hologram: a pinch (the joints', or the runtime's
/// own air-tap), or a controller's select button. Each clicks (a press let
/// go within the air-tap limits) or holds to sculpt or drag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pointer {
    Pinch = 0,
    Controller = 1,
}

/// Where one hand is this frame and what its pointers meet.
struct HandAt {
    hand: Hand,
    /// Where the hologram is drawn this frame.
    drawn: Option<Placement>,
    /// Where the hand is now.
    position: Option<Vec3>,
    /// Its grip, when located and finite.
    grip: Option<Pose>,
    hits: HandHits,
}

/// One pointer's press on one frame, with what the hand aims at.
struct Pressed {
    hand: Hand,
    pointer: Pointer,
    press: Press,
    hold: HoldEvent,
    /// Where the hand was when the press began (else now).
    origin: Option<Vec3>,
    /// Where the hand is now.
    position: Option<Vec3>,
    /// Where its aim meets the land now.
    on_surface: Option<Vec2>,
    /// Where the hologram is drawn this frame.
    drawn: Option<Placement>,
}

/// The gesture recognisers of one hand.
#[derive(Debug, Clone, Default)]
struct HandRecognizers {
    /// Thumb and index closing and parting, from the joints.
    pinch: PinchTracker,
    /// Tap versus hold of a pinch (or of a hand's runtime select) aimed at the hologram.
    hold: HoldRecognizer,
    /// Index tip pushed into the surface.
    tap: TapRecognizer,
    /// Click versus hold of a controller's select aimed at the hologram.
    controller_hold: HoldRecognizer,
    /// The select action: a controller's button, or a hand's runtime air-tap.
    select: SelectRecognizer,
    /// The squeeze action: a controller's grab.
    squeeze: SelectRecognizer,
}

/// What interaction keeps between frames.
#[derive(Default)]
pub struct Interaction {
    /// Left and right hand recognisers.
    recognizers: [HandRecognizers; 2],
    /// What holds each hand.
    focus: Focus,
    /// What is moving the hologram, if anything.
    manipulation: Option<Manipulation>,
    /// What each hand's presses aimed at when they began, by hand, then
    /// by [`Pointer`].
    pressed_on: [[Option<AimedAt>; 2]; 2],
    /// A hand sculpting the surface, with what it presses, if one is.
    stroke: Option<(Pointer, Stroke)>,
    /// What presses for the one-hand drag in progress.
    dragging_with: Option<Pointer>,
    /// Where a manipulation in progress has the hologram now: a preview,
    /// drawn and aimed at, but not a command until it settles.
    preview: Option<Placement>,
    /// The placement the platform had pinned when this frame began: a
    /// located pose belongs to it, and to nothing settled since.
    pinned: Option<PlacementId>,
    /// Whether the platform has reported the room's surfaces yet.
    surfaces_seen: bool,
    /// The display time at which the app began waiting for a kept
    /// placement the platform is still locating.
    waiting_since_ns: Option<i64>,
    /// What the next fresh placement is reported as, when a command put
    /// the hologram back ("reset") rather than the app placing it first.
    reset_by: Option<PlacementCause>,
    /// The hand menu, the landscapes panel and their buttons.
    controls: Controls,
    /// Each hand's pinch (or select) as the controls saw it this frame.
    control_hands: [Option<Press>; 2],
    /// The shared session's code, while the headset is in one.
    session_code: Option<String>,
    /// The hand coach.
    coach: Coach,
    /// A gesture acted this frame (for the coach).
    acted: bool,
    /// Where the hologram was drawn this frame (the air-tap coach stands
    /// beside it).
    hologram_at: Option<Placement>,
    /// Where each hand's ray landed on the hologram this frame.
    landings: [Option<Landing>; 2],
    /// Where the head's gaze landed on it this frame.
    gaze: Option<Landing>,
    /// Whether the wearer turned the contour lines off ("Contours"): a
    /// way of looking, each headset's own, so not a command.
    contours_hidden: bool,
    /// The sounds of grabbing the hologram and tracing a fault.
    hold_sounds: HoldSounds,
}

impl Interaction {
    /// Starts a frame: what the platform pinned so far belongs to the
    /// world's current placement.
    pub fn begin_frame(&mut self, world: &World) {
        self.pinned = Some(world.placement_id());
    }

    /// Turns this frame's input into commands (voice placement commands,
    /// the first placement, gestures, then voice's "new terrain"), and
    /// tells when the hand coach shows or goes.
    pub fn frame(&mut self, input: &FrameInput, commands: &mut dyn Commands) {
        self.acted = false;
        self.act_on(input, commands);
        self.hologram_at = self.drawn(input, commands.world());
        let pressing = self
            .control_hands
            .iter()
            .any(|press| matches!(press, Some(Press::Began | Press::Held)));
        let doings = Doings {
            placed: commands.world().placement().is_some(),
            acted: self.acted || self.manipulation.is_some() || self.stroke.is_some(),
            menu_open: self.controls.hand_menu_open(),
            busy: pressing || input.voice.is_some() || self.controls.panel_open(),
        };
        if let Some((what, shown)) = self.coach.update(input.display_time_ns, doings) {
            commands.tell(AppEvent::Coach { what, shown });
        }
    }

    /// The frame's commands, as [`Self::frame`] says.
    fn act_on(&mut self, input: &FrameInput, commands: &mut dyn Commands) {
        let head = input.head.filter(Pose::is_finite);
        let world = commands.world();
        let growth = world.growth_state();
        let shows = Shows {
            paused: growth.paused,
            recipe_name: world.recipe_name(),
            contours: !self.contours_hidden,
            grown: (world.iterations_done(), world.iterations_total()),
            iterations_per_second: growth.iterations_per_second,
            session: self.session_code.as_deref(),
            moment: (world.history().shown(), world.history().length()),
            saves: input.saves.as_deref().unwrap_or_default(),
        };
        self.controls.lay_out(
            input.display_time_ns,
            head.as_ref(),
            control_hands(input, [None; 2]),
            shows,
        );
        // In company, talk is not a command: speech acts only while the
        // speaker's own hand menu or panel is open (outside a session, always).
        let listening = self.session_code.is_none() || !self.controls.shown().is_empty();
        let said = input.voice.filter(|_| listening);
        // A label on show, said, presses its button and is nothing else.
        let heard = said.and_then(|voice| self.controls.hear(voice.phrase()));
        let voice = if heard.is_some() { None } else { said };
        // Told (and toasted): a phrase, and a label whose button is on show.
        let understood = heard
            .map(|press| VoiceCommand::Label(press.label))
            .or(voice.filter(|voice| !matches!(voice, VoiceCommand::Label(_))));
        if let Some(voice) = understood {
            commands.tell(AppEvent::Heard(voice));
        }
        if let Some(press) = heard {
            self.acted = true;
            self.press(press, head.as_ref(), input, commands);
        }
        let input = &FrameInput {
            voice,
            ..input.clone()
        };
        if input.voice == Some(VoiceCommand::Reset) && commands.world().placement().is_some() {
            self.end_quietly();
            commands.issue(Command::ResetPlacement);
            self.reset_by = Some(PlacementCause::Voice);
        }
        self.place(input, commands);
        let factor = match input.voice {
            Some(VoiceCommand::Bigger) => Some(VOICE_SCALE_STEP),
            Some(VoiceCommand::Smaller) => Some(VOICE_SCALE_STEP.recip()),
            _ => None,
        };
        if let Some(factor) = factor
            && commands.world().placement().is_some()
        {
            self.settle_manipulation(commands);
            commands.issue(Command::Scale {
                cause: PlacementCause::Voice,
                factor,
            });
        }
        for press in self.gestures(input, commands) {
            self.acted = true;
            self.press(press, head.as_ref(), input, commands);
        }
        let new_terrain_said = input.voice == Some(VoiceCommand::NewTerrain)
            && self.drawn(input, commands.world()).is_some();
        if new_terrain_said {
            commands.issue(Command::Reseed {
                cause: ReseedCause::Voice,
                hand: None,
            });
        }
        if input.voice == Some(VoiceCommand::Undo) {
            commands.issue(Command::Undo);
        }
        if input.voice == Some(VoiceCommand::Redo) {
            commands.issue(Command::Redo);
        }
        let history = commands.world().history();
        let moment = match input.voice {
            Some(VoiceCommand::Back) => Some(history.back()),
            Some(VoiceCommand::Forward) => Some(history.forward()),
            _ => None,
        };
        if let Some(to) = moment {
            commands.issue(Command::Scrub { to });
        }
        let next_landscape_said = input.voice == Some(VoiceCommand::NextLandscape)
            && self.drawn(input, commands.world()).is_some();
        if next_landscape_said {
            commands.issue(Command::Landscape {
                cause: ReseedCause::Voice,
                name: commands.world().next_landscape(),
            });
        }
        self.sound_holds(input, commands);
    }

    /// Sounds a grab or let-go of the hologram, and the tracing loop, from
    /// where the hologram is drawn.
    fn sound_holds(&mut self, input: &FrameInput, commands: &mut dyn Commands) {
        let at = self
            .drawn(input, commands.world())
            .map_or(Vec3::ZERO, |placement| placement.pose.position);
        let tracing = self
            .stroke
            .as_ref()
            .is_some_and(|(_, stroke)| stroke.is_tracing());
        let holding = self.manipulation.is_some();
        for (sound, at) in self
            .hold_sounds
            .sounds(input.display_time_ns, holding, tracing, at)
        {
            commands.tell(AppEvent::Sound { sound, at });
        }
    }

    /// Shows the shared session's code on the hand menu, in place of its
    /// "Share session".
    pub fn set_session_code(&mut self, code: &str) {
        self.session_code = Some(code.to_owned());
    }

    /// Out of the session: the hand menu offers "Share session" again.
    pub fn clear_session_code(&mut self) {
        self.session_code = None;
    }

    /// Whether the contour lines are drawn.
    pub fn contours(&self) -> bool {
        !self.contours_hidden
    }

    /// The controls on show and what to draw for them.
    pub fn controls(&self) -> &Controls {
        &self.controls
    }

    /// What to draw of the controls for this frame's hands.
    pub fn ui(&self, input: &FrameInput) -> OwnedUiLayer {
        let mut hands = control_hands(input, self.control_hands);
        // Cursors keep their size in view: they grow with the eyes' distance.
        let eyes = input.head.filter(Pose::is_finite);
        for hand in Hand::BOTH {
            let state = &mut hands[hand.index()];
            // A hand's ray on the hologram: its pinch or select acts there.
            state.lands_on = eyes
                .or(state.aim)
                .zip(self.landings[hand.index()])
                .map(|(from, landing)| cursor_at(landing, &from, true));
        }
        let mut drawn = self.controls.draw(hands);
        let gaze = eyes
            .zip(self.gaze)
            .map(|(head, landing)| cursor_at(landing, &head, false));
        self.controls.draw_gaze(gaze, hands, &mut drawn.quads);
        if let Some((what, seconds)) = self.coach.showing(input.display_time_ns)
            && let Some(head) = input.head.filter(Pose::is_finite)
            && let Some(centre) = coach_at(what, &head, self.hologram_at)
        {
            draw_coach(
                what,
                seconds,
                centre,
                head.position,
                &mut drawn.quads,
                &mut drawn.labels,
            );
        }
        OwnedUiLayer {
            quads: drawn.quads,
            labels: drawn.labels,
            menus: drawn.menus,
        }
    }

    /// Where the hologram is drawn this frame: a manipulation's preview,
    /// else the platform's located pose when it has a finite one for the
    /// placement it pinned and nothing settled since, else the world's
    /// settled placement; `None` before placement.
    pub fn drawn(&self, input: &FrameInput, world: &World) -> Option<Placement> {
        if let Some(preview) = self.preview {
            return Some(preview);
        }
        let settled = world.placement()?;
        let pinned_is_current = self.pinned == Some(world.placement_id());
        let located = input
            .hologram_located
            .filter(|pose| pose.is_finite() && pinned_is_current);
        Some(match located {
            Some(pose) => Placement { pose, ..settled },
            None => settled,
        })
    }

    /// Where the hologram is now: where a manipulation has it, else settled.
    pub fn placement(&self, world: &World) -> Option<Placement> {
        self.preview.or(world.placement())
    }

    /// The manipulation moving the hologram now, if any.
    pub fn manipulation(&self) -> Option<&Manipulation> {
        self.manipulation.as_ref()
    }

    /// The hill a hand is lifting, shown before it lets go.
    pub fn lift_preview(&self) -> Option<Edit> {
        self.stroke
            .as_ref()
            .and_then(|(_, stroke)| stroke.lift_preview())
    }

    /// What to draw on the surface while a hand sculpts: the stroke traced
    /// so far and the cursor where its next point goes (a held pinch not yet
    /// moved shows the cursor alone). A hand merely pointing draws nothing,
    /// so a relaxed hand does not leave a ring on the land.
    pub fn marks(&self) -> OwnedSurfaceMarks {
        self.stroke
            .as_ref()
            .map(|(_, stroke)| OwnedSurfaceMarks {
                stroke: stroke.path(),
                cursor: Some(stroke.cursor()),
            })
            .unwrap_or_default()
    }

    /// Places the hologram when it is not yet (a kept placement, a surface
    /// the gaze hits, or ahead of the gaze), and moves a placement made
    /// ahead of the gaze onto a surface when the surfaces first become known.
    fn place(&mut self, input: &FrameInput, commands: &mut dyn Commands) {
        let now = input.display_time_ns;
        let head = input.head.filter(Pose::is_finite);
        let world = commands.world();
        if world.placement().is_none() {
            let kept = if world.ever_placed() {
                Kept::None
            } else {
                input.kept
            };
            let placed = match (kept, head) {
                (Kept::Located(kept), _) if kept.is_finite() => {
                    Some((kept.scaled(kept.scale), PlacementCause::Kept))
                }
                (Kept::Pending, Some(head)) => {
                    let since = *self.waiting_since_ns.get_or_insert(now);
                    (now.saturating_sub(since) >= KEPT_WAIT_NS)
                        .then(|| fresh_placement(&head, input.surfaces.as_deref()))
                }
                (_, head) => head.map(|head| fresh_placement(&head, input.surfaces.as_deref())),
            };
            if let Some((placement, cause)) = placed {
                let cause = self.reset_by.take().unwrap_or(cause);
                commands.issue(Command::Place { cause, placement });
            }
        } else if world.placed_by() == Some(PlacementCause::Gaze)
            && !self.surfaces_seen
            && self.manipulation.is_none()
            && let (Some(head), Some(surfaces)) = (head, input.surfaces.as_deref())
            && let Some(point) = surfaces::gaze_hit(surfaces, &head.forward_ray())
            && let Some(current) = world.placement()
        {
            let pose = placement::place_on_surface(&head, point);
            commands.issue(Command::Place {
                cause: PlacementCause::Surface,
                placement: Placement { pose, ..current },
            });
        }
        if input.surfaces.is_some() {
            self.surfaces_seen = true;
        }
    }

    /// The pointer pipeline: every recogniser sees the frame's tracking
    /// (the presses), the controls take the presses that begin on a button,
    /// the rest find what they point at ([`Pointing`]), and each hand's
    /// presses start and end its manipulation, its sculpt, or a reseed.
    fn gestures(&mut self, input: &FrameInput, commands: &mut dyn Commands) -> Vec<UiPress> {
        let presses = self.recognise_presses(input);
        let drawn = self.drawn(input, commands.world());
        let pointing = Pointing::new(drawn, commands.world(), input.head.as_ref());
        self.gaze = pointing.gaze();
        let (pressed, presses) = self.controls_first(input, presses, &pointing, commands);
        let positions = input.hands.each_ref().map(hand_position);
        let grips = input
            .hands
            .each_ref()
            .map(|hand| hand.grip.filter(Pose::is_finite));
        for hand in Hand::BOTH {
            let index = hand.index();
            let heights = commands.world().heightmap();
            let hits = pointing.hand(&input.hands[index], heights);
            self.landings[index] = hits.landing;
            let at = HandAt {
                hand,
                drawn,
                position: positions[index],
                grip: grips[index],
                hits,
            };
            self.hand_gestures(&at, presses[index], input, commands);
        }
        self.start_two_hands(&positions, commands.world());
        if let Some(manipulation) = self.manipulation
            && let Some(moved) = manipulation.follow(positions, grips)
        {
            self.preview = Some(moved);
        }
        pressed
    }

    /// Each hand's pinch and controller select as its recognisers see this
    /// frame: (pinch, controller).
    fn recognise_presses(&mut self, input: &FrameInput) -> [(Press, Press); 2] {
        Hand::BOTH.map(|hand| {
            let hand_input = &input.hands[hand.index()];
            let recognizers = &mut self.recognizers[hand.index()];
            let select = recognizers.select.press(hand_input.select);
            if hand_input.select_is_air_tap {
                // The runtime recognises the pinch; ours would count it again.
                recognizers.pinch.update(None);
                (select, Press::Up)
            } else {
                (recognizers.pinch.press(hand_input.joints.as_ref()), select)
            }
        })
    }

    /// The controls' turn, first: a press that begins on a button, or the
    /// panel's bar, holds that hand's focus until it ends. The buttons pressed, and each
    /// hand's presses with those the controls hold taken out.
    fn controls_first(
        &mut self,
        input: &FrameInput,
        presses: [(Press, Press); 2],
        pointing: &Pointing,
        commands: &mut dyn Commands,
    ) -> (Vec<UiPress>, [(Press, Press); 2]) {
        let held_before =
            Hand::BOTH.map(|hand| self.focus.owner(hand) == Some(Target::Controls(hand)));
        // A hand with no joints (a controller) has a pinch that is always
        // Lost: its select is what presses.
        self.control_hands = presses.map(|(pinch, controller)| {
            Some(if matches!(pinch, Press::Up | Press::Lost) {
                controller
            } else {
                pinch
            })
        });
        // Nearest first: a button behind the hologram is not reached.
        let hands = control_hands(input, self.control_hands).map(|hand| HandState {
            hidden_beyond: hand.aim.and_then(|aim| pointing.bounds_distance(&aim)),
            ..hand
        });
        let pressed = self.controls.touch(hands);
        for &(sound, at) in self.controls.clicks() {
            commands.tell(AppEvent::Sound { sound, at });
        }
        for hand in Hand::BOTH {
            if self.controls.holds(hand) {
                self.focus
                    .claim(&[hand], Target::Controls(hand), Strength::Press);
            } else {
                self.focus.release(Target::Controls(hand));
            }
        }
        // The press that ends a button's press is the button's too.
        let left = Hand::BOTH.map(|hand| {
            let index = hand.index();
            if held_before[index] || self.focus.owner(hand) == Some(Target::Controls(hand)) {
                (Press::Up, Press::Up)
            } else {
                presses[index]
            }
        });
        (pressed, left)
    }

    /// One hand's presses on what it points at: a tap of the fingertip, its
    /// pinch's and controller's clicks and holds, a controller's squeeze
    /// grabbing the hologram, and the reseed the first click or tap asks for.
    fn hand_gestures(
        &mut self,
        at: &HandAt,
        (pinch, controller): (Press, Press),
        input: &FrameInput,
        commands: &mut dyn Commands,
    ) {
        let HandAt {
            hand,
            drawn,
            position,
            grip,
            hits,
        } = *at;
        let index = hand.index();
        let now = input.display_time_ns;
        let on_surface = match hits.aimed_at {
            Some(AimedAt::Surface(uv)) => Some(uv),
            _ => None,
        };
        let recognizers = &mut self.recognizers[index];
        let tap = recognizers.tap.update(hits.probe).is_some();
        let squeeze = recognizers.squeeze.press(input.hands[index].squeeze);
        let mut clicked = [false; 2];
        for (pointer, press) in [(Pointer::Pinch, pinch), (Pointer::Controller, controller)] {
            let recognizer = match pointer {
                Pointer::Pinch => &mut self.recognizers[index].hold,
                Pointer::Controller => &mut self.recognizers[index].controller_hold,
            };
            // A pinch acts only where a cursor shows: the hand's ray, or
            // else the gaze, on the land or the base. A controller's click
            // reseeds wherever it points, as its press always did (scripts
            // and runtimes rely on it); its hold acts only on what it aims at.
            let hold = recognizer.update(press, now, position, || {
                drawn.is_some() && (pointer == Pointer::Controller || hits.aimed)
            });
            let origin = recognizer.origin().or(position);
            if press == Press::Began {
                self.pressed_on[index][pointer as usize] = hits.aimed_at;
            }
            let pressed = Pressed {
                hand,
                pointer,
                press,
                hold,
                origin,
                position,
                on_surface,
                drawn,
            };
            clicked[pointer as usize] = self.pointer(&pressed, input, commands);
        }
        match squeeze {
            Press::Began if hits.aimed => {
                if let (Some(grip), Some(placement)) = (grip, drawn)
                    && self.focus.claim(&[hand], Target::Hologram, Strength::Hold)
                {
                    self.start(Manipulation::grab(hand, &grip, placement), commands.world());
                }
            }
            Press::Released | Press::Lost
                if matches!(
                    self.manipulation,
                    Some(Manipulation::Grab { hand: grabbing, .. }) if grabbing == hand
                ) =>
            {
                self.end(input, commands);
            }
            _ => {}
        }
        let reseed = [
            (clicked[Pointer::Pinch as usize], ReseedCause::AirTap),
            (tap, ReseedCause::Tap),
            (clicked[Pointer::Controller as usize], ReseedCause::Select),
        ]
        .into_iter()
        .find_map(|(fired, cause)| fired.then_some(cause));
        if let Some(cause) = reseed {
            self.acted = true;
            commands.issue(Command::Reseed {
                cause,
                hand: Some(hand),
            });
        }
    }

    /// Acts on one pointer's press: a click (whether it tapped), a hold on
    /// the surface that sculpts, a hold on the base that drags, and their ends.
    fn pointer(
        &mut self,
        pressed: &Pressed,
        input: &FrameInput,
        commands: &mut dyn Commands,
    ) -> bool {
        let Pressed {
            hand,
            pointer,
            press,
            hold,
            origin,
            position,
            on_surface,
            drawn,
        } = *pressed;
        let index = hand.index();
        let sculpting = self
            .stroke
            .as_ref()
            .is_some_and(|(by, stroke)| *by == pointer && stroke.hand == hand);
        if sculpting {
            if self.focus.owner(hand) == Some(Target::Surface) {
                if let Some((_, stroke)) = self.stroke.as_mut() {
                    stroke.follow(position, on_surface);
                }
            } else {
                // Taken over (both hands now turn the hologram).
                self.stroke = None;
            }
        }
        match hold {
            HoldEvent::Tap => return true,
            HoldEvent::Manipulating { first: true } => {
                let Some(origin) = origin else {
                    return false;
                };
                match (self.pressed_on[index][pointer as usize], drawn) {
                    (Some(AimedAt::Surface(start)), Some(placement)) => {
                        if self.focus.claim(&[hand], Target::Surface, Strength::Drag) {
                            let exaggeration = commands.world().exaggeration();
                            let mut stroke =
                                Stroke::new(hand, start, origin, placement, exaggeration);
                            stroke.follow(position, on_surface);
                            self.stroke = Some((pointer, stroke));
                        }
                    }
                    // A controller held aimed at nothing holds nothing.
                    (None, _) if pointer == Pointer::Controller => {}
                    (_, Some(start)) => {
                        if self.focus.claim(&[hand], Target::Hologram, Strength::Drag) {
                            self.dragging_with = Some(pointer);
                            self.start(
                                Manipulation::Drag {
                                    hand,
                                    origin,
                                    start,
                                },
                                commands.world(),
                            );
                        }
                    }
                    (_, None) => {}
                }
            }
            HoldEvent::ManipulationEnded if sculpting => {
                self.focus.release(Target::Surface);
                // A hand lost mid-stroke did not mean to finish it.
                if let Some((_, stroke)) = self.stroke.take()
                    && press != Press::Lost
                {
                    commands.issue(stroke.finish());
                }
            }
            HoldEvent::ManipulationEnded => {
                let dragged_by_this = matches!(
                    self.manipulation,
                    Some(Manipulation::Drag { hand: dragging, .. }) if dragging == hand
                ) && self.dragging_with == Some(pointer);
                let turning = matches!(self.manipulation, Some(Manipulation::TwoHand { .. }))
                    && pointer == Pointer::Pinch;
                if dragged_by_this || turning {
                    self.end(input, commands);
                }
            }
            _ => {}
        }
        false
    }

    /// Starts `manipulation`, its hands already claimed: the preview takes
    /// over from the settled placement, and follows the hands from now.
    fn start(&mut self, manipulation: Manipulation, world: &World) {
        self.manipulation = Some(manipulation);
        self.preview = self.placement(world);
    }

    /// Starts turning and scaling with both hands when both pinch on the
    /// hologram (taking over a one-hand drag); their pinches can then no
    /// longer be taps.
    fn start_two_hands(&mut self, positions: &[Option<Vec3>; 2], world: &World) {
        let both_pressed = self
            .recognizers
            .iter()
            .all(|recognizers| recognizers.hold.is_pressed());
        if let ([Some(left), Some(right)], Some(start), true) =
            (*positions, self.placement(world), both_pressed)
            && self
                .focus
                .claim(&Hand::BOTH, Target::Hologram, Strength::Hold)
        {
            self.start(
                Manipulation::TwoHand {
                    origins: [left, right],
                    start,
                },
                world,
            );
            for recognizers in &mut self.recognizers {
                recognizers.hold.claim();
            }
        }
    }

    /// Ends the manipulation in progress: the hologram follows the hands
    /// one last time, a drag settles onto a surface just below, and the
    /// placement is settled.
    fn end(&mut self, input: &FrameInput, commands: &mut dyn Commands) {
        let Some(manipulation) = self.manipulation.take() else {
            return;
        };
        self.focus.release(Target::Hologram);
        let current = self.preview.take().or(commands.world().placement());
        let positions = input.hands.each_ref().map(hand_position);
        let grips = input
            .hands
            .each_ref()
            .map(|hand| hand.grip.filter(Pose::is_finite));
        let Some(mut ended) = manipulation.follow(positions, grips).or(current) else {
            return;
        };
        if manipulation.cause() == PlacementCause::Move
            && let Some(surfaces) = input.surfaces.as_deref()
            && let Some(height) = surfaces::surface_below(surfaces, ended.pose.position)
        {
            ended.pose = Pose::new(
                Vec3::new(ended.pose.position.x, height, ended.pose.position.z),
                placement::level(ended.pose.orientation),
            );
        }
        commands.issue(Command::Place {
            cause: manipulation.cause(),
            placement: ended,
        });
    }

    /// Ends a manipulation in progress where the hands have it now (before
    /// a voice command changes the placement).
    fn settle_manipulation(&mut self, commands: &mut dyn Commands) {
        if let Some(manipulation) = self.manipulation.take() {
            self.focus.release(Target::Hologram);
            if let Some(current) = self.preview.take().or(commands.world().placement()) {
                commands.issue(Command::Place {
                    cause: manipulation.cause(),
                    placement: current,
                });
            }
        }
    }

    /// Drops a manipulation in progress without settling it, and every
    /// pinch in progress, as the hologram is about to be placed afresh.
    fn end_quietly(&mut self) {
        self.manipulation = None;
        self.stroke = None;
        self.focus.release(Target::Surface);
        self.preview = None;
        self.focus.release(Target::Hologram);
        for recognizers in &mut self.recognizers {
            recognizers.hold = HoldRecognizer::new();
            recognizers.controller_hold = HoldRecognizer::new();
        }
    }
}

/// A fresh placement for the head: onto the upward surface its gaze hits
/// first within 4 m, else ahead of it.
fn fresh_placement(head: &Pose, surfaces: Option<&[Surface]>) -> (Placement, PlacementCause) {
    match surfaces.and_then(|surfaces| surfaces::gaze_hit(surfaces, &head.forward_ray())) {
        Some(point) => (
            Placement::at(placement::place_on_surface(head, point)),
            PlacementCause::Surface,
        ),
        None => (
            Placement::at(placement::place_hologram(head)),
            PlacementCause::Gaze,
        ),
    }
}

/// Where a hand is, for measuring how far it moves: its palm when the
/// joints are tracked (the palm stays put as the fingers close), else its
/// grip, else its aim pose.
fn hand_position(hand: &HandInput) -> Option<Vec3> {
    let palm = hand
        .joints
        .as_ref()
        .filter(|joints| joints_are_finite(joints))
        .map(|joints| joints[PALM].pose.position);
    let pose_position =
        |pose: &Option<Pose>| pose.filter(Pose::is_finite).map(|pose: Pose| pose.position);
    palm.or_else(|| pose_position(&hand.grip))
        .or_else(|| pose_position(&hand.aim))
}

/// Where the coach for `what` stands for the wearer at `head`: the
/// air-tap at the hologram's near right corner, raised, within reach of
/// the eye (about 0.75 m, where its line keeps 0.65°); the palm a little
/// beyond arm's length, low and to the right, where a hand is raised.
fn coach_at(what: Coached, head: &Pose, hologram: Option<Placement>) -> Option<Vec3> {
    let level = |v: Vec3| Vec3::new(v.x, 0.0, v.z).normalize_or(Vec3::NEG_Z);
    match what {
        Coached::AirTap => {
            let at = hologram?;
            let towards = level(head.position - at.pose.position);
            let right = Vec3::Y.cross(towards);
            let corner = HOLOGRAM_SIZE_M / 2.0 * at.scale;
            let centre = at.pose.position + right * corner + Vec3::Y * 0.1;
            let distance = (head.position - centre).length();
            Some(centre + (head.position - centre) / distance * (distance - 0.75).max(0.0))
        }
        Coached::Palm => {
            // In the head's own view, however it is pitched.
            let (forward, up) = (head.orientation * Vec3::NEG_Z, head.orientation * Vec3::Y);
            let right = forward.cross(up);
            Some(head.position + forward * 0.55 - up * 0.08 + right * 0.12)
        }
    }
}

/// A cursor where `landing` is, seen from `from`.
fn cursor_at(landing: Landing, from: &Pose, targeted: bool) -> Cursor {
    Cursor {
        point: landing.point,
        normal: landing.normal,
        distance: (landing.point - from.position).length(),
        targeted,
    }
}

/// What each hand offers the controls: its joints, its aim and `presses`.
fn control_hands(input: &FrameInput, presses: [Option<Press>; 2]) -> [HandState<'_>; 2] {
    Hand::BOTH.map(|hand| {
        let hand_input = &input.hands[hand.index()];
        HandState {
            joints: hand_input.joints.as_ref(),
            aim: hand_input.aim,
            press: presses[hand.index()],
            menu: hand_input.menu,
            hidden_beyond: None,
            lands_on: None,
        }
    })
}
