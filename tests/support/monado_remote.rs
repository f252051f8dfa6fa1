//! A client of Monado's remote driver protocol (`src/xrt/drivers/remote/r_interface.h`,
//! header "mndrmt3"): connects to the driver's TCP port, reads the two
//! `r_remote_data` structs the server sends on connect, then streams the
//! current head and controller state at about 50 Hz from a thread.
//!
//! Layout (376 bytes, little-endian, offsets checked against the upstream
//! header with gcc's `offsetof`, see tests/support/remote_layout.c): u64 header; head data
//! (128 B: two per-view {fov, pose, pad} of 48 B, centre pose at 96,
//! per_view_data_valid at 124); left controller at 136 and right at 256
//! (120 B each: pose 0, linear velocity 28, angular velocity 40, hand_curl[5]
//! 52, trigger value 72, squeeze value 76, squeeze force 80, thumbstick 84,
//! trackpad force 92, trackpad 96, then 16 bools from hand_tracking_active at
//! 104: active 105, system click/touch 106/107, a 108/109, b 110/111,
//! trigger click/touch 112/113, thumbstick 114/115, trackpad touch 116).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Size of one `struct r_remote_data`.
pub const PACKET_SIZE: usize = 376;
/// `R_HEADER_VALUE` of Monado 25: the bytes "mndrmt3\0".
pub const HEADER: [u8; 8] = *b"mndrmt3\0";
/// Offset of `head` in `r_remote_data`.
pub const HEAD_OFFSET: usize = 8;
/// Offset of `head.center` in `r_remote_data`.
pub const HEAD_CENTER_OFFSET: usize = HEAD_OFFSET + 96;
/// Offset of `left` in `r_remote_data`.
pub const LEFT_OFFSET: usize = 136;
/// Offset of `right` in `r_remote_data`.
pub const RIGHT_OFFSET: usize = 256;
/// Size of `struct r_remote_controller_data`.
pub const CONTROLLER_SIZE: usize = 120;
/// Offsets inside `struct r_remote_controller_data`.
pub const HAND_CURL: usize = 52;
/// Offset of `trigger_value`.
pub const TRIGGER_VALUE: usize = 72;
/// Offset of `squeeze_value` (the Index controller's `squeeze/value`).
pub const SQUEEZE_VALUE: usize = 76;
/// Offset of `squeeze_force` (its `squeeze/force`).
pub const SQUEEZE_FORCE: usize = 80;
/// Offset of `hand_tracking_active`.
pub const HAND_TRACKING_ACTIVE: usize = 104;
/// Offset of `active`.
pub const ACTIVE: usize = 105;
/// Offset of `trigger_click`.
pub const TRIGGER_CLICK: usize = 112;
/// Offset of `trigger_touch`.
pub const TRIGGER_TOUCH: usize = 113;
/// Time between two sends (50 Hz).
const SEND_PERIOD: Duration = Duration::from_millis(20);

/// A rigid pose in Monado's tracking space: metres, quaternion x, y, z, w.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemotePose {
    /// Position, metres.
    pub position: [f32; 3],
    /// Orientation quaternion (x, y, z, w).
    pub orientation: [f32; 4],
}

impl RemotePose {
    /// A pose at `position` whose forward (-Z) points along `direction`.
    pub fn aiming(position: [f32; 3], direction: [f32; 3]) -> Self {
        let length = direction.iter().map(|c| c * c).sum::<f32>().sqrt();
        let d = direction.map(|c| c / length);
        // Rotation taking -Z onto d: axis (-Z) x d, angle acos(-Z . d).
        let axis = [d[1], -d[0], 0.0_f32];
        let cos_angle = -d[2];
        let axis_length = (axis[0] * axis[0] + axis[1] * axis[1]).sqrt();
        let orientation = if axis_length < 1e-6 {
            if cos_angle > 0.0 {
                [0.0, 0.0, 0.0, 1.0]
            } else {
                [0.0, 1.0, 0.0, 0.0]
            }
        } else {
            let half = cos_angle.clamp(-1.0, 1.0).acos() / 2.0;
            let s = half.sin() / axis_length;
            [axis[0] * s, axis[1] * s, 0.0, half.cos()]
        };
        Self {
            position,
            orientation,
        }
    }

    fn encode(&self, packet: &mut [u8], offset: usize) {
        for (index, value) in self.orientation.iter().chain(&self.position).enumerate() {
            put_f32(packet, offset + index * 4, *value);
        }
    }
}

/// One controller's state as the driver sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControllerState {
    /// Grip pose.
    pub pose: RemotePose,
    /// Finger curls, 0 open to 1 closed: little, ring, middle, index, thumb.
    pub hand_curl: [f32; 5],
    /// Trigger fully pressed (value 1, click and touch) or released.
    pub trigger: bool,
    /// Grip squeezed fully (value and force 1) or let go.
    pub squeeze: bool,
    /// Whether the controller is tracked.
    pub active: bool,
    /// Whether hand joints are synthesised from the curls.
    pub hand_tracking: bool,
}

/// The whole state sent each period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemoteState {
    /// The head (view centre) pose.
    pub head: RemotePose,
    /// Left controller.
    pub left: ControllerState,
    /// Right controller.
    pub right: ControllerState,
}

impl Default for RemoteState {
    /// The server's own starting state: head at (0, 1.6, 0) looking down -Z,
    /// controllers at (±0.2, 1.3, -0.5), open hands, tracked.
    fn default() -> Self {
        let controller = |x: f32| ControllerState {
            pose: RemotePose {
                position: [x, 1.3, -0.5],
                orientation: [0.0, 0.0, 0.0, 1.0],
            },
            hand_curl: [0.0; 5],
            trigger: false,
            squeeze: false,
            active: true,
            hand_tracking: true,
        };
        Self {
            head: RemotePose {
                position: [0.0, 1.6, 0.0],
                orientation: [0.0, 0.0, 0.0, 1.0],
            },
            left: controller(-0.2),
            right: controller(0.2),
        }
    }
}

fn put_f32(packet: &mut [u8], offset: usize, value: f32) {
    packet[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

impl ControllerState {
    fn encode(&self, packet: &mut [u8], offset: usize) {
        self.pose.encode(packet, offset);
        for (finger, curl) in self.hand_curl.iter().enumerate() {
            put_f32(packet, offset + HAND_CURL + finger * 4, *curl);
        }
        put_f32(
            packet,
            offset + TRIGGER_VALUE,
            if self.trigger { 1.0 } else { 0.0 },
        );
        let squeeze = if self.squeeze { 1.0 } else { 0.0 };
        put_f32(packet, offset + SQUEEZE_VALUE, squeeze);
        put_f32(packet, offset + SQUEEZE_FORCE, squeeze);
        packet[offset + HAND_TRACKING_ACTIVE] = u8::from(self.hand_tracking);
        packet[offset + ACTIVE] = u8::from(self.active);
        packet[offset + TRIGGER_CLICK] = u8::from(self.trigger);
        packet[offset + TRIGGER_TOUCH] = u8::from(self.trigger);
    }
}

impl RemoteState {
    /// The wire form of this state.
    pub fn encode(&self) -> [u8; PACKET_SIZE] {
        let mut packet = [0_u8; PACKET_SIZE];
        packet[..8].copy_from_slice(&HEADER);
        self.head.encode(&mut packet, HEAD_CENTER_OFFSET);
        self.left.encode(&mut packet, LEFT_OFFSET);
        self.right.encode(&mut packet, RIGHT_OFFSET);
        packet
    }
}

/// A connected client streaming [`RemoteState`] until dropped or finished.
pub struct RemoteClient {
    /// The state the sender thread sends next.
    state: Arc<Mutex<RemoteState>>,
    /// Asks the sender thread to stop.
    stop: Arc<AtomicBool>,
    /// The sender thread; returns the first send error.
    sender: Option<JoinHandle<io::Result<u64>>>,
}

impl RemoteClient {
    /// Connects (retrying until `patience` runs out: the service may not be
    /// up yet), reads the server's two initial structs and starts sending.
    pub fn connect(address: SocketAddr, patience: Duration) -> io::Result<Self> {
        let deadline = Instant::now() + patience;
        let mut stream = loop {
            match TcpStream::connect_timeout(&address, Duration::from_secs(1)) {
                Ok(stream) => break stream,
                Err(error) if Instant::now() >= deadline => return Err(error),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        };
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut initial = [0_u8; 2 * PACKET_SIZE];
        stream.read_exact(&mut initial)?;
        let state = Arc::new(Mutex::new(RemoteState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let sender = {
            let state = Arc::clone(&state);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || -> io::Result<u64> {
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) {
                    let packet = state
                        .lock()
                        .map(|state| state.encode())
                        .unwrap_or([0; PACKET_SIZE]);
                    stream.write_all(&packet)?;
                    sent += 1;
                    std::thread::sleep(SEND_PERIOD);
                }
                Ok(sent)
            })
        };
        Ok(Self {
            state,
            stop,
            sender: Some(sender),
        })
    }

    /// Changes the state sent from the next period on.
    pub fn update(&self, change: impl FnOnce(&mut RemoteState)) {
        let mut state = self.state.lock().expect("remote state lock");
        change(&mut state);
    }

    /// Stops sending; returns how many packets were sent, or the send error.
    pub fn finish(mut self) -> io::Result<u64> {
        self.stop.store(true, Ordering::Relaxed);
        match self.sender.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("remote sender thread panicked")),
            None => Ok(0),
        }
    }
}

impl Drop for RemoteClient {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
