//! Opening a path the model named, for reading, only when it is a regular
//! file: open(2) of a FIFO blocks until a writer comes (forever, and no
//! interrupt reaches it), a device like `/dev/zero` never ends, and merely
//! opening some devices has effects. The path is checked before it is
//! opened, and the opened file again, for a path swapped in between.

use std::fs::{File, FileType, Metadata};
use std::io::{self, Read as _};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a path was not opened.
#[derive(Debug)]
pub(crate) enum OpenFailure {
    Missing,
    Directory,
    /// Not a regular file: what it is ("a FIFO (named pipe)", ...).
    Special(&'static str),
    Io(io::Error),
}

impl OpenFailure {
    /// The tool error of `tool` for `path`.
    pub(crate) fn message(&self, path: &Path, tool: &str) -> String {
        let shown = path.display();
        match self {
            OpenFailure::Missing => format!("File does not exist: {shown}"),
            OpenFailure::Directory => format!("{shown} is a directory, not a file."),
            OpenFailure::Special(what) => format!(
                "{shown} is {what}, not a regular file; {tool} works on regular files only (inspect it with Bash if you must)."
            ),
            OpenFailure::Io(e) => format!("Cannot read {shown}: {e}"),
        }
    }
}

impl From<io::Error> for OpenFailure {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::NotFound => OpenFailure::Missing,
            _ => OpenFailure::Io(e),
        }
    }
}

/// What a non-regular file is, for messages; `None` for a regular file.
pub(crate) fn special_kind(file_type: &FileType) -> Option<&'static str> {
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        Some("a special file")
    }
}

fn check(meta: &Metadata) -> Result<(), OpenFailure> {
    match special_kind(&meta.file_type()) {
        None => Ok(()),
        Some(_) if meta.is_dir() => Err(OpenFailure::Directory),
        Some(what) => Err(OpenFailure::Special(what)),
    }
}

/// Opens `path` (symlinks followed) for reading if it is a regular file.
pub(crate) fn open_regular(path: &Path) -> Result<File, OpenFailure> {
    check(&std::fs::metadata(path)?)?;
    // O_NONBLOCK: should the path have become a FIFO since the check, the
    // open returns at once instead of waiting for a writer.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    check(&file.metadata()?)?;
    clear_nonblocking(&file)?;
    Ok(file)
}

/// Reads a whole regular file (see [`open_regular`]).
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>, OpenFailure> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Regular files ignore O_NONBLOCK; it is cleared anyway so the file
/// behaves as an ordinary open one.
fn clear_nonblocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function's caller owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_devices_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hi").unwrap();
        assert_eq!(read_regular(&file).unwrap(), b"hi");
        assert!(matches!(
            open_regular(Path::new("/dev/null")),
            Err(OpenFailure::Special("a character device"))
        ));
        assert!(matches!(
            open_regular(dir.path()),
            Err(OpenFailure::Directory)
        ));
        assert!(matches!(
            open_regular(&dir.path().join("none")),
            Err(OpenFailure::Missing)
        ));
    }
}
