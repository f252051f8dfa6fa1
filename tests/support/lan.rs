//! Two network namespaces joined by a virtual Ethernet cable, 10.77.0.1 and 10.77.0.2: a local network a test makes for DNS-SD (root and `ip` needed).
use std::process::Command;

/// `program` to be run in the network namespace `namespace` (through `ip
/// netns exec`), or as it is without one.
pub fn command_in(namespace: Option<&str>, program: &str) -> Command {
    match namespace {
        Some(namespace) => {
            let mut command = Command::new("ip");
            command.args(["netns", "exec", namespace, program]);
            command
        }
        None => Command::new(program),
    }
}

/// Two network namespaces joined by a virtual Ethernet cable: two
/// machines on one local network, made by the test (root and `ip` needed)
/// and removed when dropped.
pub struct Lan {
    /// The namespaces' names, 10.77.0.1's first.
    pub names: [String; 2],
}

impl Lan {
    /// The two machines, 10.77.0.1 and 10.77.0.2; `None` (skipped, or a
    /// failure under CI) where namespaces cannot be made.
    pub fn new() -> Option<Lan> {
        let id = std::process::id();
        let lan = Lan {
            names: [format!("ht-a-{id}"), format!("ht-b-{id}")],
        };
        let [a, b] = &lan.names;
        let (cable_a, cable_b) = (format!("hta{id}"), format!("htb{id}"));
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", a],
            vec!["netns", "add", b],
            vec![
                "link", "add", &cable_a, "netns", a, "type", "veth", "peer", "name", &cable_b,
                "netns", b,
            ],
            vec!["-n", a, "addr", "add", "10.77.0.1/24", "dev", &cable_a],
            vec!["-n", b, "addr", "add", "10.77.0.2/24", "dev", &cable_b],
            vec!["-n", a, "link", "set", &cable_a, "up"],
            vec!["-n", b, "link", "set", &cable_b, "up"],
            vec!["-n", a, "link", "set", "lo", "up"],
            vec!["-n", b, "link", "set", "lo", "up"],
        ];
        for step in steps {
            let made = Command::new("ip").args(&step).output();
            match made {
                Ok(output) if output.status.success() => {}
                Ok(output) => {
                    super::ci::skip(&format!(
                        "ip {}: {}",
                        step.join(" "),
                        String::from_utf8_lossy(&output.stderr).trim()
                    ));
                    return None;
                }
                Err(error) => {
                    super::ci::skip(&format!("cannot run ip: {error}"));
                    return None;
                }
            }
        }
        Some(lan)
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        // Deleting a namespace deletes the cable's ends in it.
        for name in &self.names {
            let _ = Command::new("ip").args(["netns", "del", name]).output();
        }
    }
}
