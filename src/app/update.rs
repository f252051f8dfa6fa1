//! The app's state between frames and its update, the one place a frame's commands are ordered: the interaction's, the shared session's and the replayed, then growth.
use crate::app::controls;
use crate::app::controls::toast::Toasts;
use crate::app::frame::{self, AppEvent, FrameInput, FrameOutput, Marker};
use crate::app::intent::manipulation::Manipulation;
use crate::app::intent::{Commands, Interaction};
use crate::app::shared::Sharing;
use crate::app::shared::colocation;
use crate::app::shared::session::{Role, SessionIn, SessionOut, Step};
use crate::app::world::command::{self, Applied, Command, Origin};
use crate::app::world::placement::{self, Land, Placement, PlacementCause};
use crate::app::world::{AppConfig, AppError, World};
use crate::input::{Aabb, Pose};
use crate::terrain::Heightmap;

/// The app's state between frames: the world, the interaction that makes
/// its commands, and commands handed in between frames.
pub struct App {
    /// The terrain, its growth and the settled placement.
    world: World,
    /// Hands, gaze and voice, turned into commands.
    interaction: Interaction,
    /// Commands handed in since the last update ([`App::submit`]), with
    /// who made them, applied first.
    inbox: Vec<(Command, Origin)>,
    /// The next command's sequence number.
    next_seq: u64,
    /// Its part in a shared session, if it is in one ([`shared`]).
    sharing: Option<Sharing>,
    /// (key, checksum of the grown heights just before a terrain command
    /// applied), until taken ([`App::take_checksums`]): the key is the
    /// command's local `seq`, on a peer its shared [`Ordered::seq`]. Kept
    /// alone too, so that a session hosted later checks its peers against
    /// the commands made before.
    checksums: Vec<(u64, u64)>,
    /// The toast on show, if any.
    toasts: Toasts,
}

impl App {
    pub fn new(config: AppConfig) -> Result<Self, AppError> {
        Ok(App {
            world: World::new(&config)?,
            interaction: Interaction::default(),
            inbox: Vec::new(),
            next_seq: 0,
            sharing: None,
            checksums: Vec::new(),
            toasts: Toasts::default(),
        })
    }

    /// Starts over from `config`: another world, as a new app would grow it
    /// (nothing of this one's world, placement, commands or session stays).
    pub fn restart(&mut self, config: AppConfig) -> Result<(), AppError> {
        *self = App::new(config)?;
        Ok(())
    }

    /// Advances one frame: the wearer's hands, gaze and voice make the commands.
    pub fn update(&mut self, input: &FrameInput) -> FrameOutput {
        self.advance(input, None)
    }

    /// Advances one frame with `commands` (read back from a command log)
    /// instead of the wearer's: the world changes exactly as it did when
    /// they were made.
    pub fn replay(&mut self, input: &FrameInput, commands: &[Command]) -> FrameOutput {
        self.advance(input, Some(commands))
    }

    /// Hands in a command made outside the frame's input (a test, later a
    /// menu or another headset); the next update applies it first.
    pub fn submit(&mut self, command: Command) {
        self.submit_from(command, Origin::Local);
    }

    /// Hands in a command that `origin` made (a shared session's host
    /// hands in its peers' this way); the next update applies it first.
    pub(in crate::app) fn submit_from(&mut self, command: Command, origin: Origin) {
        self.inbox.push((command, origin));
    }

    /// Takes part in a shared session as `role` from the next update on
    /// ([`shared`]): a peer holds growth where it stands until the host
    /// says how far to grow.
    pub(in crate::app) fn share(&mut self, role: Role) {
        if role == Role::Peer {
            let done = self.world.iterations_done();
            self.world.set_growth_limit(Some(done), 0);
        }
        self.sharing = Some(Sharing::new(role));
    }

    /// Its part in a shared session, if it is in one.
    pub fn shared_role(&self) -> Option<Role> {
        self.sharing.as_ref().map(|sharing| sharing.role)
    }

    /// Queues what the host said (a peer's); the next update applies it.
    pub(in crate::app) fn follow(&mut self, step: Step) {
        if let Some(sharing) = self.sharing.as_mut() {
            sharing.steps.push_back(step);
        }
    }

    /// Co-locates by the session's printed card (`holoterrain:CODE`) from
    /// the next update on: once the card is seen, the hologram's placement
    /// relative to it is shared ([`colocation`]), and the hand menu shows
    /// the code. Only in a shared session.
    pub(in crate::app) fn co_locate_by(&mut self, code: &str) {
        if let Some(sharing) = self.sharing.as_mut() {
            sharing.card = Some(colocation::Card::for_code(code));
            self.interaction.set_session_code(code);
        }
    }

    /// Takes a placement relative to the card that `origin` settled (a
    /// peer's on the host, the host's on a peer): the next update applies
    /// it once the card is seen.
    /// One beyond reach of the table (more than [`colocation::MAX_REACH_M`]
    /// from the card) is not followed; its scale is held to the limits.
    pub(in crate::app) fn follow_placement(&mut self, relative: Placement, origin: Origin) {
        if relative.pose.position.length() > colocation::MAX_REACH_M {
            return;
        }
        let unit_turn = relative.is_finite()
            && (relative.pose.orientation.length() - 1.0).abs()
                <= command::UNIT_QUATERNION_TOLERANCE;
        if !unit_turn {
            ::log::warn!(
                "refused a placement from {}: not a finite pose with a unit orientation",
                origin.describe()
            );
            return;
        }
        if let Some(sharing) = self.sharing.as_mut() {
            let relative = Placement {
                scale: relative
                    .scale
                    .clamp(placement::MIN_SCALE, placement::MAX_SCALE),
                ..relative
            };
            sharing.placement_in = Some((relative, origin));
        }
    }

    /// This headset's number in the session (a peer's, as the host gave
    /// it; the host is 0): its own head is not marked.
    pub(in crate::app) fn set_share_number(&mut self, number: u32) {
        if let Some(sharing) = self.sharing.as_mut() {
            sharing.me = Some(number);
        }
    }

    /// The wearer's head relative to the card, for the others to mark
    /// where this headset is; `None` until the card is known.
    pub(in crate::app) fn head_relative(&self) -> Option<Pose> {
        self.sharing.as_ref().and_then(|sharing| sharing.head)
    }

    /// Everyone's heads relative to the card (by number), as the host
    /// tells: the others are marked from the next frame on.
    pub(in crate::app) fn see_heads(&mut self, heads: Vec<(u32, Pose)>) {
        if let Some(sharing) = self.sharing.as_mut() {
            sharing.heads = heads;
        }
    }

    /// The checksums kept while alone (in a session each frame hands its
    /// own on in [`FrameOutput::shared`]), for a session hosted from here.
    pub fn checksums_so_far(&self) -> &[(u64, u64)] {
        &self.checksums
    }

    /// One frame: the commands (the inbox's, then the wearer's or the
    /// replayed ones), then growth.
    fn advance(&mut self, input: &FrameInput, replayed: Option<&[Command]>) -> FrameOutput {
        for value in &input.shared {
            self.take_in(value.clone());
        }
        let now = input.display_time_ns;
        self.world.begin_frame(now, input.visible);
        self.interaction.begin_frame(&self.world);
        let mut frame = FrameCommands {
            world: &mut self.world,
            now,
            next_seq: &mut self.next_seq,
            origin: Origin::Local,
            events: Vec::new(),
            applied: Vec::new(),
            reseed: None,
            deferred: Vec::new(),
            sharing: self.sharing.as_mut(),
            checksums: &mut self.checksums,
        };
        // A peer's new terrain waits for the wearer's: the frame's one new
        // terrain is then the wearer's, and the peer's is deferred, not lost.
        let (peers_new_terrain, handed_in): (Vec<_>, Vec<_>) =
            self.inbox.drain(..).partition(|(command, origin)| {
                matches!(origin, Origin::Peer(_)) && command.is_new_terrain()
            });
        for (command, origin) in handed_in {
            frame.origin = origin;
            frame.issue(command);
        }
        frame.origin = Origin::Local;
        let host_left = frame.follow_host();
        let card_moved = frame.follow_card(input.markers.as_deref().unwrap_or_default());
        frame.note_head(input.head.as_ref());
        match replayed {
            Some(commands) => {
                frame.origin = Origin::Replay;
                for command in commands {
                    frame.issue(command.clone());
                }
            }
            None => self.interaction.frame(input, &mut frame),
        }
        for (command, origin) in peers_new_terrain {
            frame.origin = origin;
            frame.issue(command);
        }
        let (events, commands, deferred) = frame.finish();
        self.inbox.extend(deferred);
        self.pass_placement_on(&commands, card_moved);
        if host_left {
            self.sharing = None;
        }
        let changed_by_commands = events.iter().any(|event| {
            matches!(
                event,
                AppEvent::Reseeded { .. }
                    | AppEvent::Undid { undone: Some(_) }
                    | AppEvent::Redid { redone: Some(_) }
                    | AppEvent::Edited { ignored: None, .. }
                    | AppEvent::Weathered
            )
        });
        // A lift the hand still holds shows, but only its command applies.
        let previewed = match replayed {
            Some(_) => self.world.preview(None),
            None => self.world.preview(self.interaction.lift_preview().as_ref()),
        };
        let (iterations_applied, grown) = self.world.grow(now);
        let shared = self.session_out();
        let toast = match replayed {
            Some(_) => None,
            None => self
                .toasts
                .begin(now, &events, input.saved.as_ref(), input.head.as_ref()),
        };
        FrameOutput {
            model: self
                .interaction
                .drawn(input, &self.world)
                .as_ref()
                .map(|placement| placement.model_matrix(self.world.exaggeration())),
            heights_changed: changed_by_commands || previewed || grown,
            events,
            commands,
            iterations_done: self.world.iterations_done(),
            iterations_applied,
            views: input.views,
            display_time_ns: now,
            height_range: self.world.height_range(),
            sea_level: self.world.recipe().sea_level,
            palette: self.world.recipe().palette,
            contours: self.interaction.contours(),
            exaggeration: self.world.exaggeration(),
            across_km: self.world.recipe().across_km(),
            marks: self.interaction.marks(),
            ui: match replayed {
                // A replay has no wearer, so no controls to show.
                Some(_) => frame::OwnedUiLayer::default(),
                None => self.with_toast(
                    self.with_head_markers(self.interaction.ui(input), input),
                    now,
                ),
            },
            shared,
            toast,
        }
    }

    /// Applies one value a shared session brought in.
    fn take_in(&mut self, value: SessionIn) {
        match value {
            SessionIn::Began { role, code } => {
                // A host took those kept alone with it; a peer checks its own.
                self.checksums.clear();
                self.share(role);
                self.co_locate_by(&code);
            }
            SessionIn::Number(number) => self.set_share_number(number),
            SessionIn::Command(command, origin) => self.submit_from(command, origin),
            SessionIn::Step(step) => self.follow(step),
            SessionIn::Placement(relative, origin) => self.follow_placement(relative, origin),
            SessionIn::Heads(heads) => self.see_heads(heads),
            SessionIn::Left => {
                self.sharing = None;
                self.interaction.clear_session_code();
            }
        }
    }

    /// What goes to the shared session after this frame, while in one.
    fn session_out(&mut self) -> Option<SessionOut> {
        let head = self.head_relative();
        let sharing = self.sharing.as_mut()?;
        Some(SessionOut {
            outbox: std::mem::take(&mut sharing.outbox),
            placement: sharing.placement_out.take(),
            head,
            checksums: std::mem::take(&mut self.checksums),
        })
    }

    /// `ui` with the toast on show at `now` over it, if one is.
    fn with_toast(&self, mut ui: frame::OwnedUiLayer, now: i64) -> frame::OwnedUiLayer {
        if let Some((plate, line)) = self.toasts.drawn(now) {
            ui.quads.push(plate);
            ui.labels.push(line);
        }
        ui
    }

    /// `ui` with the other people at the table marked, where the card
    /// tells where they are.
    fn with_head_markers(
        &self,
        mut ui: frame::OwnedUiLayer,
        input: &FrameInput,
    ) -> frame::OwnedUiLayer {
        let Some(sharing) = &self.sharing else {
            return ui;
        };
        let (Some(card), Some(viewer)) = (
            sharing.card.as_ref().and_then(colocation::Card::frame),
            input.head,
        ) else {
            return ui;
        };
        let (quads, labels) = colocation::head_markers(&card, &sharing.heads, sharing.me, &viewer);
        ui.quads.extend(quads);
        ui.labels.extend(labels);
        ui
    }

    /// Hands the hologram's placement relative to the card to the network
    /// when it settled here this frame: on the host whoever moved it (or
    /// the card was found or moved: peers see it where the host does), on a
    /// peer only its wearer (what came from the host is not sent back).
    fn pass_placement_on(&mut self, applied: &[Applied], card_moved: bool) {
        let Some(sharing) = self.sharing.as_mut() else {
            return;
        };
        let Some(card) = &sharing.card else {
            return;
        };
        let placed = applied.iter().any(|applied| {
            !applied.command.is_terrain()
                && (sharing.role == Role::Host || applied.origin == Origin::Local)
        });
        if placed || (card_moved && sharing.role == Role::Host) {
            sharing.placement_out = self
                .world
                .placement()
                .and_then(|placement| card.relative(&placement));
        }
    }

    /// Finishes an edit still easing in and drops a lift's preview, so the
    /// heights are exactly what the commands made (a run's end writes them).
    pub fn settle_edits(&mut self) {
        self.world.settle_edits();
    }

    /// The world: terrain, growth and the settled placement.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The land as drawn: the heights that show, and the exaggeration.
    pub fn land(&self) -> Land<'_> {
        Land::new(self.world.heightmap(), self.world.exaggeration())
    }

    /// The current heights (terrain units).
    pub fn heightmap(&self) -> &Heightmap {
        self.world.heightmap()
    }

    /// Where the hologram is (its pose), once placed.
    pub fn hologram_pose(&self) -> Option<Pose> {
        self.placement().map(|placement| placement.pose)
    }

    /// Where the hologram is and how big, once placed; during a
    /// manipulation, where the hands have it now.
    pub fn placement(&self) -> Option<Placement> {
        self.interaction.placement(&self.world)
    }

    /// The manipulation moving the hologram now, if any.
    pub fn manipulation(&self) -> Option<&Manipulation> {
        self.interaction.manipulation()
    }

    /// The buttons on show, where the last update laid them out.
    pub fn buttons(&self) -> &[controls::ShownButton] {
        self.interaction.controls().shown()
    }

    /// The label of the button `hand`'s ray is on.
    pub fn ray_on(&self, hand: crate::input::Hand) -> Option<&'static str> {
        self.interaction.controls().ray_on(hand)
    }

    /// Whether growth is paused, and how fast it goes.
    pub fn growth_state(&self) -> frame::GrowthState {
        self.world.growth_state()
    }

    /// The hologram's bounds in hologram space (metres at 1×), relief included.
    pub fn bounds(&self) -> Aabb {
        self.world.bounds()
    }

    /// The current seed.
    pub fn seed(&self) -> u64 {
        self.world.seed()
    }

    /// Iterations applied to the current seed so far.
    pub fn iterations_done(&self) -> usize {
        self.world.iterations_done()
    }

    /// Iterations in a full growth.
    pub fn iterations_total(&self) -> usize {
        self.world.iterations_total()
    }
}

/// One frame's commands on their way into the world: the one place that
/// orders them. Placement commands apply as issued; a frame has at most one
/// reseed, the first asked for, applied after everything else: another of
/// the wearer's is dropped (two taps in one frame are one), another
/// headset's waits for the next frame.
struct FrameCommands<'w> {
    world: &'w mut World,
    /// The frame's display time.
    now: i64,
    next_seq: &'w mut u64,
    /// Who makes the commands issued now.
    origin: Origin,
    /// What the applied commands changed, in order.
    events: Vec<AppEvent>,
    /// The commands applied, in order.
    applied: Vec<Applied>,
    /// The frame's reseed, with who asked, until the frame ends.
    reseed: Option<(Command, Origin)>,
    /// Other headsets' new terrains that found the frame's taken: the next
    /// frame's.
    deferred: Vec<(Command, Origin)>,
    /// The app's part in a shared session, if any.
    sharing: Option<&'w mut Sharing>,
    /// Where the checksums go.
    checksums: &'w mut Vec<(u64, u64)>,
}

impl FrameCommands<'_> {
    /// A peer's part of the frame: the host's steps, in its order, before
    /// anything of the wearer's; whether the host has gone.
    fn follow_host(&mut self) -> bool {
        let Some(sharing) = self.sharing.as_mut() else {
            return false;
        };
        let steps: Vec<Step> = sharing.steps.drain(..).collect();
        for step in steps {
            match step {
                Step::GrowTo(iteration) => self.world.set_growth_limit(Some(iteration), self.now),
                Step::Apply(ordered) => {
                    self.world.catch_up_to(ordered.iteration);
                    let checksum = self.world.grown_checksum();
                    self.checksums.push((ordered.seq, checksum));
                    self.apply(ordered.command, ordered.origin);
                    // A reseed or undo starts another count: hold it where
                    // it stands until the host says more.
                    let now = self.world.iterations_done();
                    self.world.set_growth_limit(Some(now), self.now);
                }
                Step::HostLeft => {
                    // The terrain stays as the host last had it (growth
                    // held there); the wearer's next new terrain grows by
                    // this headset's own clock.
                    self.sharing = None;
                    return true;
                }
            }
        }
        false
    }

    /// Co-location's part of the frame: takes the markers seen into the
    /// card, and applies a placement relative to it that another headset
    /// settled, once the card is known; whether the card's frame moved.
    fn follow_card(&mut self, markers: &[Marker]) -> bool {
        let Some(sharing) = self.sharing.as_mut() else {
            return false;
        };
        let Some(card) = sharing.card.as_mut() else {
            return false;
        };
        let moved = card.see(markers);
        let placement = match &sharing.placement_in {
            Some((relative, origin)) => card.placed(relative).map(|placed| (placed, *origin)),
            None => None,
        };
        if let Some((placement, origin)) = placement {
            sharing.placement_in = None;
            self.apply(
                Command::Place {
                    cause: PlacementCause::Card,
                    placement,
                },
                origin,
            );
        }
        moved
    }

    /// Keeps the wearer's head relative to the card, once it is known.
    fn note_head(&mut self, head: Option<&Pose>) {
        let Some(sharing) = self.sharing.as_mut() else {
            return;
        };
        let card = sharing.card.as_ref().and_then(colocation::Card::frame);
        sharing.head = match (card, head) {
            (Some(card), Some(head)) if head.is_finite() => Some(card.inverse().compose(head)),
            _ => None,
        };
    }

    fn apply(&mut self, command: Command, origin: Origin) {
        // Whoever made it: a command that fails the check changes nothing,
        // takes no place in the order and is never passed on.
        if let Err(problem) = command.check() {
            ::log::warn!(
                "refused a {} command from {}: {problem}",
                command.kind(),
                origin.describe()
            );
            return;
        }
        let iteration = self.world.iterations_done();
        // A peer takes its checksums where the host's order applies.
        let peer = self
            .sharing
            .as_ref()
            .is_some_and(|sharing| sharing.role == Role::Peer);
        if command.is_terrain() && !peer {
            let checksum = self.world.grown_checksum();
            self.checksums.push((*self.next_seq, checksum));
        }
        if self.undo_refused(&command, origin) {
            return;
        }
        let noted = self.world.changes_noted();
        let event = self.world.apply(&command, self.now);
        if let Some(sharing) = self.sharing.as_mut()
            && sharing.role == Role::Host
        {
            let changed = self.world.changes_noted() > noted;
            sharing.authors.note(origin, changed, event.as_ref());
        }
        self.events.extend(event.map(AppEvent::from));
        self.applied.push(Applied {
            seq: *self.next_seq,
            origin,
            command,
            iteration,
        });
        *self.next_seq += 1;
    }

    /// Whether the host drops `command` unordered: an undo from `origin`
    /// when the change on top is someone else's (an undo that comes back
    /// from an earlier moment to now takes back nothing, and goes on).
    fn undo_refused(&mut self, command: &Command, origin: Origin) -> bool {
        let Some(sharing) = self.sharing.as_ref() else {
            return false;
        };
        let refused = sharing.role == Role::Host
            && matches!(command, Command::Undo)
            && !self.world.history().is_scrubbed()
            && self.world.undo_depth() > 0
            && !sharing.authors.may_undo(origin);
        if refused {
            let maker = sharing.authors.on_top();
            ::log::info!(
                "did not order an undo from {}: the last change was made by {}",
                origin.describe(),
                maker.describe()
            );
            if origin == Origin::Local {
                self.events.push(AppEvent::UndoRefused);
            }
        }
        refused
    }

    /// Applies the frame's reseed; what the frame's commands changed, the
    /// commands applied, and those deferred to the next frame.
    fn finish(mut self) -> (Vec<AppEvent>, Vec<Applied>, Vec<(Command, Origin)>) {
        if let Some((reseed, origin)) = self.reseed.take() {
            self.apply(reseed, origin);
        }
        (self.events, self.applied, self.deferred)
    }
}

impl Commands for FrameCommands<'_> {
    fn world(&self) -> &World {
        self.world
    }

    fn issue(&mut self, command: Command) {
        if let Some(sharing) = self.sharing.as_mut()
            && sharing.role == Role::Peer
            && command.is_terrain()
        {
            // The host orders it; it comes back as a step.
            sharing.outbox.push(command);
        } else if command.is_new_terrain() {
            if self.reseed.is_none() {
                self.reseed = Some((command, self.origin));
            } else if matches!(self.origin, Origin::Peer(_)) {
                self.deferred.push((command, self.origin));
            }
        } else {
            self.apply(command, self.origin);
        }
    }

    fn tell(&mut self, event: AppEvent) {
        self.events.push(event);
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_manipulation;
#[cfg(test)]
mod tests_sculpt;
#[cfg(test)]
mod tests_shared;
