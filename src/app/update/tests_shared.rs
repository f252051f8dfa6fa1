//! Unit tests of the app in a shared session: a peer following the host's order bit for bit, a late joiner catching up, co-location by the card, the host leaving, and refusing what cannot apply.
use std::collections::VecDeque;

use glam::{Quat, Vec3};

use super::tests::{app, frame_at};
use super::*;
use crate::app::shared::session::Ordered;
use crate::app::voice::VoiceCommand;
use crate::app::world::command::ReseedCause;
use crate::input::Hand;
use crate::terrain::recipe::BuiltInName;

/// What the host's frame tells its peers: its terrain commands in order,
/// then how far it grew.
fn steps_of(output: &FrameOutput, next_seq: &mut u64) -> Vec<Step> {
    let mut steps: Vec<Step> = output
        .commands
        .iter()
        .filter(|applied| applied.command.is_terrain())
        .map(|applied| {
            *next_seq += 1;
            Step::Apply(Ordered {
                seq: *next_seq - 1,
                // As the host tells it (`crate::net`).
                origin: match applied.origin {
                    Origin::Local => Origin::Host,
                    other => other,
                },
                iteration: applied.iteration,
                command: applied.command.clone(),
            })
        })
        .collect();
    steps.push(Step::GrowTo(output.iterations_done));
    steps
}

/// What `output` hands the shared session.
fn shared_out(output: &FrameOutput) -> SessionOut {
    output.shared.clone().expect("in a session")
}

fn bits(app: &App) -> Vec<u32> {
    app.heightmap()
        .cells()
        .iter()
        .map(|h| h.to_bits())
        .collect()
}

#[test]
fn a_peer_follows_the_hosts_order_bit_for_bit_and_never_grows_past_it() {
    let (mut host, mut peer) = (app(), app());
    host.share(Role::Host);
    peer.share(Role::Peer);
    let lift = Command::Lift {
        hand: Some(Hand::Left),
        at: [0.5, 0.5],
        height: 0.1,
    };
    let trace = Command::Trace {
        hand: Some(Hand::Right),
        points: vec![[0.1, 0.4], [0.9, 0.6]],
    };
    // The network: what the host said, delivered 5 frames later.
    let mut in_flight: VecDeque<(i64, Vec<Step>)> = VecDeque::new();
    let (mut next_seq, mut announced) = (0, 0);
    let (mut host_checks, mut peer_checks) = (Vec::new(), Vec::new());
    let mut peer_commands = Vec::new();
    let mut peer_outbox = Vec::new();
    for frame in 0..400 {
        match frame {
            30 => host.submit(Command::Reseed {
                cause: ReseedCause::Voice,
                hand: None,
            }),
            60 => peer.submit(lift.clone()),
            90 => host.submit(Command::Landscape {
                cause: ReseedCause::Voice,
                name: BuiltInName::new("islands").unwrap(),
            }),
            120 => host.submit(trace.clone()),
            // Each undo takes back its speaker's own change: the host's
            // trace and landscape, then the peer's lift beneath them.
            150 => host.submit(Command::Undo),
            200 => host.submit(Command::Undo),
            250 => peer.submit(Command::Undo),
            _ => {}
        }
        // The peer's wearer's commands wait for the host.
        for command in peer_outbox.drain(..) {
            host.submit_from(command, Origin::Peer(1));
        }
        let output = host.update(&frame_at(frame, 60));
        let keys: Vec<u64> = output
            .commands
            .iter()
            .filter(|applied| applied.command.is_terrain())
            .map(|applied| applied.seq)
            .collect();
        let by_seq: std::collections::HashMap<u64, u64> =
            shared_out(&output).checksums.into_iter().collect();
        host_checks.extend(keys.iter().map(|key| by_seq[key]));
        in_flight.push_back((frame + 5, steps_of(&output, &mut next_seq)));
        while in_flight.front().is_some_and(|(due, _)| *due <= frame) {
            for step in in_flight.pop_front().unwrap().1 {
                if let Step::GrowTo(iteration) = step {
                    announced = iteration;
                }
                peer.follow(step);
            }
        }
        // Another clock, 0.1 s behind the host's.
        let peer_output = peer.update(&frame_at(frame - 6, 60));
        assert!(
            peer_output
                .commands
                .iter()
                .all(|applied| applied.origin != Origin::Local || !applied.command.is_terrain()),
            "a peer applied its own terrain command at frame {frame}"
        );
        assert!(peer.iterations_done() <= announced.max(peer_output.iterations_done));
        if peer_output.commands.is_empty() {
            assert!(peer.iterations_done() <= announced, "frame {frame}");
        }
        let sent = shared_out(&peer_output);
        peer_checks.extend(sent.checksums);
        peer_outbox.extend(sent.outbox);
        peer_commands.extend(peer_output.commands);
    }
    for (_, steps) in in_flight {
        steps.into_iter().for_each(|step| peer.follow(step));
    }
    // The last few iterations, within the per-frame budget.
    for frame in 400..410 {
        peer_checks.extend(shared_out(&peer.update(&frame_at(frame, 60))).checksums);
    }
    host.settle_edits();
    peer.settle_edits();

    let shared: Vec<(Origin, Command)> = peer_commands
        .iter()
        .filter(|applied| applied.command.is_terrain())
        .map(|applied| (applied.origin, applied.command.clone()))
        .collect();
    assert_eq!(shared.len(), 7, "{shared:?}");
    assert_eq!(shared[1], (Origin::Peer(1), lift));
    assert_eq!(shared[3], (Origin::Host, trace));
    assert_eq!(shared[6], (Origin::Peer(1), Command::Undo));
    assert_eq!(host.seed(), peer.seed());
    assert_eq!(host.iterations_done(), peer.iterations_done());
    assert_eq!(bits(&host), bits(&peer), "the heights differ");
    // The checksums, taken where each command applied, agree one by one.
    let peer_checks: Vec<u64> = peer_checks.into_iter().map(|(_, c)| c).collect();
    assert_eq!(peer_checks, host_checks);
}

#[test]
fn a_late_joiner_catches_up_from_the_log_and_ends_level() {
    let mut host = app();
    host.share(Role::Host);
    let (mut log, mut host_checks) = (Vec::new(), Vec::new());
    let mut next_seq = 0;
    for frame in 0..300 {
        if frame == 100 {
            host.submit(Command::Reseed {
                cause: ReseedCause::Voice,
                hand: None,
            });
        }
        if frame == 150 {
            host.submit(Command::Lift {
                hand: None,
                at: [0.3, 0.3],
                height: -0.05,
            });
        }
        let output = host.update(&frame_at(frame, 60));
        log.extend(steps_of(&output, &mut next_seq));
        host_checks.extend(shared_out(&output).checksums.into_iter().map(|(_, c)| c));
    }
    host.settle_edits();

    // Far behind, it works off more a frame than a lone headset does,
    // and more still when its frames come slowly: at 60 Hz twelve a
    // frame, at 15 Hz four 60 Hz frames' worth; level either way.
    let mut joined = Vec::new();
    let mut first_checks = Vec::new();
    for (rate, expected_most) in [
        (60, crate::app::world::growth::CATCH_UP_ITERATIONS_PER_FRAME),
        (
            15,
            4 * crate::app::world::growth::CATCH_UP_ITERATIONS_PER_FRAME,
        ),
    ] {
        let mut peer = app();
        peer.share(Role::Peer);
        log.iter().cloned().for_each(|step| peer.follow(step));
        let (mut frames, mut most) = (0, 0);
        while peer.iterations_done() < host.iterations_done() {
            let output = peer.update(&frame_at(frames, rate));
            if joined.is_empty() {
                first_checks.extend(shared_out(&output).checksums);
            }
            most = most.max(output.iterations_applied);
            frames += 1;
            assert!(frames < 200, "the joiner never caught up");
        }
        assert_eq!(most, expected_most, "at {rate} Hz");
        peer.settle_edits();
        assert_eq!(peer.iterations_done(), host.iterations_done());
        assert_eq!(bits(&host), bits(&peer), "at {rate} Hz");
        joined.push(peer);
    }
    // Each command applied where the host applied it: the heights
    // grown by then agree too (edits and reseeds would end the same
    // even if they had not; the checksums would not).
    let peer_checks: Vec<u64> = first_checks.into_iter().map(|(_, c)| c).collect();
    assert_eq!(peer_checks.len(), 2);
    assert_eq!(peer_checks, host_checks);
}

#[test]
fn a_peers_new_terrain_in_a_frame_that_has_one_waits_for_the_next_frame() {
    let mut host = app();
    host.share(Role::Host);
    let reseed = |cause| Command::Reseed { cause, hand: None };
    host.update(&frame_at(0, 60));
    // The host's wearer and two peers ask for new terrains in one frame.
    host.submit(reseed(ReseedCause::Voice));
    host.submit_from(reseed(ReseedCause::AirTap), Origin::Peer(1));
    host.submit_from(reseed(ReseedCause::Tap), Origin::Peer(2));
    let origins = |output: &FrameOutput| -> Vec<Origin> {
        output
            .commands
            .iter()
            .map(|applied| applied.origin)
            .collect()
    };
    let frames: Vec<Vec<Origin>> = (1..5)
        .map(|frame| origins(&host.update(&frame_at(frame, 60))))
        .collect();
    assert_eq!(
        frames,
        [
            vec![Origin::Local],
            vec![Origin::Peer(1)],
            vec![Origin::Peer(2)],
            vec![]
        ],
        "one new terrain a frame, none lost"
    );
    // A lone wearer's second tap in a frame is still one tap.
    let mut lone = app();
    lone.update(&frame_at(0, 60));
    lone.submit(reseed(ReseedCause::Voice));
    lone.submit(reseed(ReseedCause::AirTap));
    assert_eq!(lone.update(&frame_at(1, 60)).commands.len(), 1);
    assert!(lone.update(&frame_at(2, 60)).commands.is_empty());
}

/// A frame in which the headset sees the session's card at `card`
/// (in its own space), freshly.
fn seeing_card(frame: i64, card: Pose) -> FrameInput {
    FrameInput {
        markers: Some(
            vec![Marker {
                text: "holoterrain:7-guitar-orbit".into(),
                pose: card,
                size_m: 0.067,
                last_seen_ns: frame_at(frame, 60).display_time_ns,
            }]
            .into(),
        ),
        ..frame_at(frame, 60)
    }
}

#[test]
fn headsets_seeing_the_card_hold_the_hologram_on_one_spot_of_the_table() {
    // One card, two headsets' spaces: the peer's is moved and turned
    // against the host's.
    let card_for_host = Pose::new(Vec3::new(0.2, 0.75, -0.9), Quat::from_rotation_y(0.3));
    let peer_from_host = Pose::new(Vec3::new(1.2, 0.1, -0.4), Quat::from_rotation_y(2.5));
    let card_for_peer = peer_from_host.inverse().compose(&card_for_host);
    let (mut host, mut peer) = (app(), app());
    host.share(Role::Host);
    peer.share(Role::Peer);
    for headset in [&mut host, &mut peer] {
        headset.co_locate_by("7-guitar-orbit");
    }
    let in_host_space = |peer: &App| -> Placement {
        let placement = peer.placement().expect("placed");
        Placement {
            pose: peer_from_host.compose(&placement.pose),
            ..placement
        }
    };
    let mut relayed = 0;
    for frame in 0..40 {
        // The peer's wearer moves the hologram on frame 20, by voice.
        if frame == 20 {
            peer.submit(Command::Scale {
                cause: PlacementCause::Voice,
                factor: 1.25,
            });
        }
        let output = host.update(&seeing_card(frame, card_for_host));
        if let Some(relative) = shared_out(&output).placement {
            relayed += 1;
            peer.follow_placement(relative, Origin::Host);
        }
        let output = peer.update(&seeing_card(frame, card_for_peer));
        if let Some(relative) = shared_out(&output).placement {
            host.follow_placement(relative, Origin::Peer(1));
        }
        if frame == 10 {
            // Each placed its own copy by gaze; the card brought the
            // peer's to the host's spot.
            let (ours, theirs) = (host.placement().unwrap(), in_host_space(&peer));
            assert!(ours.pose.position.distance(theirs.pose.position) < 1e-4);
            assert!(ours.pose.orientation.angle_between(theirs.pose.orientation) < 1e-3);
        }
    }
    // The peer's scaling went through the host and back: one size for all.
    let (ours, theirs) = (host.placement().unwrap(), in_host_space(&peer));
    assert!((ours.scale - 1.25).abs() < 1e-6, "{}", ours.scale);
    assert_eq!(ours.scale, theirs.scale);
    assert!(ours.pose.position.distance(theirs.pose.position) < 1e-4);
    // Once when the host found the card, once for the peer's scaling.
    assert_eq!(relayed, 2);

    // Where each wearer is, as the host tells everyone: the host sees
    // a ring over the peer's head, and none over its own.
    peer.set_share_number(1);
    let heads = vec![
        (0, host.head_relative().expect("the host sees the card")),
        (1, peer.head_relative().expect("the peer sees the card")),
    ];
    host.see_heads(heads.clone());
    peer.see_heads(heads);
    let rings = |output: &FrameOutput| -> Vec<Vec3> {
        output
            .ui
            .quads
            .iter()
            .filter(|quad| quad.fill == crate::render::scene::UiFill::Ring)
            .map(|quad| quad.rect.centre)
            .collect()
    };
    let (host_view, peer_view) = (
        host.update(&seeing_card(40, card_for_host)),
        peer.update(&seeing_card(40, card_for_peer)),
    );
    let head = |frame: &FrameInput| frame.head.unwrap().position;
    let peer_head_for_host = peer_from_host.transform_point(head(&frame_at(40, 60)));
    let above = Vec3::Y * colocation::HEAD_MARKER_ABOVE_M;
    let host_rings = rings(&host_view);
    assert_eq!(host_rings.len(), 1, "{host_rings:?}");
    assert!(host_rings[0].distance(peer_head_for_host + above) < 1e-4);
    let host_head_for_peer = peer_from_host
        .inverse()
        .transform_point(head(&frame_at(40, 60)));
    let peer_rings = rings(&peer_view);
    assert_eq!(peer_rings.len(), 1, "{peer_rings:?}");
    assert!(peer_rings[0].distance(host_head_for_peer + above) < 1e-4);
}

#[test]
fn a_placement_beyond_the_table_is_not_followed() {
    let mut peer = app();
    peer.share(Role::Peer);
    peer.co_locate_by("7-guitar-orbit");
    let card = Pose::new(Vec3::new(0.0, 0.7, -0.8), Quat::IDENTITY);
    let far = Placement::at(Pose::new(Vec3::new(0.0, 0.0, -40.0), Quat::IDENTITY));
    peer.follow_placement(far, Origin::Host);
    for frame in 0..10 {
        peer.update(&seeing_card(frame, card));
    }
    let placement = peer.placement().expect("placed by gaze");
    assert!(placement.pose.position.length() < 5.0);
}

#[test]
fn when_the_host_leaves_the_peer_keeps_its_terrain_and_commands_apply_again() {
    let mut peer = app();
    peer.share(Role::Peer);
    peer.follow(Step::GrowTo(20));
    for frame in 0..10 {
        peer.update(&frame_at(frame, 60));
    }
    assert_eq!(peer.iterations_done(), 20);
    peer.follow(Step::HostLeft);
    for frame in 10..100 {
        peer.update(&frame_at(frame, 60));
    }
    assert_eq!(peer.iterations_done(), 20, "the terrain moved on");
    assert_eq!(peer.shared_role(), None);
    peer.submit(Command::Undo);
    let output = peer.update(&frame_at(100, 60));
    assert_eq!(output.commands.len(), 1, "its own command did not apply");
    assert!(output.shared.is_none_or(|sent| sent.outbox.is_empty()));
}

#[test]
fn a_peers_non_finite_or_unbounded_commands_change_nothing_and_are_never_ordered() {
    // The same host twice: one hears a hostile peer, one hears nobody.
    let (mut host, mut twin) = (app(), app());
    host.share(Role::Host);
    twin.share(Role::Host);
    for frame in 0..30 {
        host.update(&frame_at(frame, 60));
        twin.update(&frame_at(frame, 60));
    }
    let hostile = [
        Command::Lift {
            hand: None,
            at: [0.5, 0.5],
            height: f32::INFINITY,
        },
        Command::Lift {
            hand: None,
            at: [0.5, 0.5],
            height: 3.4e38,
        },
        Command::Lift {
            hand: None,
            at: [f32::NAN, 0.5],
            height: 0.1,
        },
        Command::Trace {
            hand: None,
            points: vec![[0.1, 0.1]; crate::app::world::command::MAX_TRACE_POINTS + 1],
        },
    ];
    for command in hostile {
        host.submit_from(command, Origin::Peer(1));
    }
    let output = host.update(&frame_at(30, 60));
    twin.update(&frame_at(30, 60));
    assert_eq!(output.commands, Vec::new(), "a hostile command was ordered");
    host.settle_edits();
    twin.settle_edits();
    assert_eq!(
        bits(&host),
        bits(&twin),
        "a hostile command changed the heights"
    );
    assert!(host.heightmap().cells().iter().all(|h| h.is_finite()));
    // A quaternion of length 0 would turn the hologram into NaN.
    let degenerate = Placement {
        pose: Pose {
            position: Vec3::new(0.0, 0.0, 0.3),
            orientation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        },
        scale: 1.0,
    };
    host.follow_placement(degenerate, Origin::Peer(1));
    let placed = host.placement();
    host.update(&frame_at(31, 60));
    assert_eq!(host.placement(), placed);
}

#[test]
fn in_a_session_speech_with_no_menu_open_does_nothing_and_alone_the_same_words_act() {
    let said = [
        (20, VoiceCommand::NewTerrain),
        (25, VoiceCommand::Bigger),
        (30, VoiceCommand::Undo),
        (35, VoiceCommand::Label("Save terrain")),
    ];
    for in_session in [false, true] {
        let mut app = app();
        let mut outputs = Vec::new();
        for frame in 0..40 {
            let mut input = frame_at(frame, 60);
            if frame == 0 && in_session {
                input.shared.push(SessionIn::Began {
                    role: Role::Host,
                    code: "7-guitar-orbit".into(),
                });
            }
            input.voice = said
                .iter()
                .find(|(at, _)| *at == frame)
                .map(|&(_, words)| words);
            outputs.push(app.update(&input));
        }
        assert!(
            app.world().placement().is_some(),
            "placed, so words could act"
        );
        let commands: Vec<&Command> = outputs[20..]
            .iter()
            .flat_map(|output| &output.commands)
            .map(|applied| &applied.command)
            .collect();
        let events: Vec<&AppEvent> = outputs[20..]
            .iter()
            .flat_map(|output| &output.events)
            .collect();
        let toasts: Vec<&String> = outputs.iter().filter_map(|o| o.toast.as_ref()).collect();
        if in_session {
            assert!(commands.is_empty(), "{commands:?}");
            assert!(
                !events
                    .iter()
                    .any(|event| matches!(event, AppEvent::Heard(_) | AppEvent::Undid { .. })),
                "{events:?}"
            );
            assert!(toasts.is_empty(), "{toasts:?}");
        } else {
            assert!(
                matches!(commands[0], Command::Reseed { .. }),
                "{commands:?}"
            );
            assert!(commands.iter().any(|c| matches!(c, Command::Scale { .. })));
            assert!(commands.iter().any(|c| matches!(c, Command::Undo)));
            assert_eq!(
                toasts,
                [
                    "Heard: new terrain",
                    "Heard: bigger",
                    "Undid the new terrain"
                ]
            );
        }
    }
}

#[test]
fn the_host_orders_an_undo_only_when_the_change_on_top_is_the_speakers_own() {
    let mut host = app();
    host.share(Role::Host);
    let lift = |hand| Command::Lift {
        hand: Some(hand),
        at: [0.5, 0.5],
        height: 0.1,
    };
    let mut ordered = Vec::new();
    let mut toasts = Vec::new();
    let mut frame = 0;
    let mut step = |host: &mut App, command: Command, origin: Origin| {
        host.submit_from(command, origin);
        let output = host.update(&frame_at(frame, 60));
        frame += 1;
        ordered.extend(
            output
                .commands
                .iter()
                .filter(|applied| applied.command.is_terrain())
                .map(|applied| (applied.command.kind(), applied.origin)),
        );
        toasts.extend(output.toast);
        output.events
    };
    step(&mut host, lift(Hand::Right), Origin::Local);
    step(&mut host, lift(Hand::Left), Origin::Peer(1));
    let events = step(&mut host, Command::Undo, Origin::Local);
    assert!(events.contains(&AppEvent::UndoRefused), "{events:?}");
    let before = bits(&host);
    let events = step(&mut host, Command::Undo, Origin::Peer(1));
    assert!(events.contains(&AppEvent::Undid {
        undone: Some(crate::app::world::undo::Undone::Lift)
    }));
    assert_ne!(bits(&host), before, "the peer's lift was taken back");
    // Now the host's own lift is on top, and the peer has none left.
    assert!(step(&mut host, Command::Undo, Origin::Peer(1)).is_empty());
    let events = step(&mut host, Command::Undo, Origin::Local);
    assert!(
        events
            .iter()
            .any(|event| matches!(event, AppEvent::Undid { undone: Some(_) }))
    );
    let kinds: Vec<(&str, Origin)> = ordered;
    assert_eq!(
        kinds,
        [
            ("lift", Origin::Local),
            ("lift", Origin::Peer(1)),
            ("undo", Origin::Peer(1)),
            ("undo", Origin::Local),
        ],
        "a refused undo is never ordered"
    );
    assert_eq!(toasts[0], "Not undone: someone else changed it last");
}
