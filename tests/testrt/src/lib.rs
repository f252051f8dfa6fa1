//! holoterrain-testrt: an OpenXR runtime modelled on HoloLens 2's documented
//! behaviour, for holoterrain's tests. A strict test double, not a HoloLens:
//! the wearer is the simulator's scripted user, the display is a clock, and
//! every submitted frame can be read back and compared with the simulator's.
//!
//! The OpenXR loader finds it through a manifest (`scripts/build-test-runtime.sh`
//! writes `target/testrt/{linux,windows}/holoterrain_testrt.json`), calls
//! `xrNegotiateLoaderRuntimeInterface` (`loader`) and from then on every
//! function through `dispatch`. What it emulates, from which public
//! sources, and where it differs from a headset: docs/testrt.md.
//!
//! One module per concern: `extensions` (the table of what is offered),
//! `config` (the `HOLOTERRAIN_TESTRT_*` environment), `state` (handles,
//! the call wrapper and violations), `instance`, `session` (the state
//! machine), `frame` (frame timing and layer submission), `layers` (layer
//! validation), `spaces`, `anchors` (and their store), `scene` (scene
//! understanding's planes) and `planes` (plane detection's), `actions`,
//! `action_states` and `profiles`,
//! `hands`, `wearer` (the scripted user), `swapchain` and `graphics`
//! (per graphics API), `remoting`, `speech` and `report`.

mod action_states;
mod actions;
mod anchors;
mod config;
mod dispatch;
mod extensions;
mod frame;
mod graphics;
mod hands;
mod instance;
mod layers;
mod loader;
mod observer;
mod planes;
mod profiles;
mod remoting;
mod report;
mod reprojection;
mod scene;
mod session;
mod spaces;
mod speech;
mod state;
mod structs;
mod swapchain;
mod wearer;
