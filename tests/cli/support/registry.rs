//! A real OCI registry on loopback for the registry tests: the CNCF `distribution` registry
//! (Debian's `docker-registry`), with optional TLS (a throwaway CA made with `openssl`),
//! htpasswd basic auth (`htpasswd -B`) and pull-through caching of another registry. Its
//! access log is kept, so a test can count what the registry served.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const REGISTRY: &str = "docker-registry";

/// Whether the registry, `htpasswd` and `openssl` are installed; else [`super::skip`].
pub(crate) fn available() -> bool {
    let have = |p: &str, arg: &str| {
        Command::new(p)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    let ok = have(REGISTRY, "--version") && have("htpasswd", "-h") && have("openssl", "version");
    if !ok {
        super::skip(
            "no docker-registry, htpasswd or openssl (apt-get install docker-registry apache2-utils openssl)",
            "the OCI registry tests",
        );
    }
    ok
}

/// How to start a registry.
#[derive(Default)]
pub(crate) struct Options {
    /// Serve HTTPS with a certificate of [`Ca`].
    pub(crate) tls: Option<Ca>,
    /// Demand basic auth for this user and password.
    pub(crate) user: Option<(String, String)>,
    /// Be a pull-through cache of this registry (`http://127.0.0.1:PORT`).
    pub(crate) proxy_of: Option<String>,
}

/// A throwaway certificate authority and a server certificate for 127.0.0.1.
#[derive(Clone)]
pub(crate) struct Ca {
    /// The CA's certificate: what `SSL_CERT_FILE` names to trust it.
    pub(crate) cert: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
}

impl Ca {
    pub(crate) fn make(dir: &Path) -> Ca {
        std::fs::create_dir_all(dir).unwrap();
        let run = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .unwrap();
            assert!(out.status.success(), "openssl {args:?}: {out:?}");
        };
        run(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=plugins-test-ca",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        run(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ]);
        std::fs::write(
            dir.join("ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        run(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "ext",
        ]);
        Ca {
            cert: dir.join("ca.pem"),
            server_cert: dir.join("server.pem"),
            server_key: dir.join("server.key"),
        }
    }
}

/// A running registry; stopped (killed and reaped) on drop.
pub(crate) struct Registry {
    pub(crate) port: u16,
    /// Its storage root.
    pub(crate) storage: PathBuf,
    config: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

impl Registry {
    /// Start a registry in `dir` on a free loopback port.
    pub(crate) fn start(dir: &Path, opts: &Options) -> Registry {
        std::fs::create_dir_all(dir).unwrap();
        let storage = dir.join("storage");
        let mut config = format!(
            "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:PORT\n",
            storage.display()
        );
        if let Some(ca) = &opts.tls {
            config += &format!(
                "  tls:\n    certificate: {}\n    key: {}\n",
                ca.server_cert.display(),
                ca.server_key.display()
            );
        }
        if let Some((user, password)) = &opts.user {
            let out = Command::new("htpasswd")
                .args(["-Bbn", user, password])
                .output()
                .unwrap();
            assert!(out.status.success());
            std::fs::write(dir.join("htpasswd"), out.stdout).unwrap();
            config += &format!(
                "auth:\n  htpasswd:\n    realm: plugins-test\n    path: {}\n",
                dir.join("htpasswd").display()
            );
        }
        if let Some(remote) = &opts.proxy_of {
            config += &format!("proxy:\n  remoteurl: {remote}\n");
        }
        // Info level: the access log is how a test counts what was served.
        config += "log:\n  level: info\n  formatter: text\n";
        let mut registry = Registry {
            port: 0,
            storage,
            config: dir.join("config.yml"),
            log: dir.join("registry.log"),
            child: None,
        };
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            std::fs::write(&registry.config, config.replace("PORT", &port.to_string())).unwrap();
            registry.port = port;
            if registry.spawn() {
                return registry;
            }
        }
        panic!("the registry did not start: {}", registry.log_text());
    }

    fn spawn(&mut self) -> bool {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut child = Command::new(REGISTRY)
            .arg("serve")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("docker-registry starts");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            if let Ok(Some(_)) = child.try_wait() {
                return false;
            }
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                self.child = Some(child);
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        false
    }

    /// `127.0.0.1:PORT`.
    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Stop it (kill and reap); its storage stays.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The file of a blob in its storage (editing it makes the registry serve other bytes).
    pub(crate) fn blob(&self, digest: &str) -> PathBuf {
        let hex = digest.trim_start_matches("sha256:");
        self.storage
            .join("docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// What it logged.
    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The request lines of its access log that `GET` a blob: `(digest, count)` in order
    /// of first request.
    pub(crate) fn blob_gets(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for line in self.log_text().lines() {
            let Some(i) = line.find("\"GET /v2/") else {
                continue;
            };
            let request = &line[i..];
            let Some(j) = request.find("/blobs/sha256:") else {
                continue;
            };
            let digest: String = request[j + "/blobs/".len()..]
                .chars()
                .take("sha256:".len() + 64)
                .collect();
            match out.iter_mut().find(|(d, _)| *d == digest) {
                Some((_, n)) => *n += 1,
                None => out.push((digest, 1)),
            }
        }
        out
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}
