//! A file descriptor passed to another process over a Unix socket (`SCM_RIGHTS`): the receiver
//! gets its own descriptor of the same open file, as `dup` would give, whichever process
//! holds the other end. (Opening `/proc/<pid>/fd/<n>` would open the file anew instead, which
//! is not the same handle for a driver's file; `pidfd_getfd` duplicates it but needs ptrace
//! rights over the sender, which a child lacks over its parent under the common Yama setting.)
//!
//! Each message carries one data byte, [`TAG`], which the descriptor travels with; the
//! receiver reads exactly that byte, so whatever the program sends next on the same socket
//! stays for it to read.

use std::ffi::c_int;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

/// The data byte a descriptor travels with.
const TAG: u8 = b'F';

/// Room for the control message of one descriptor (`CMSG_SPACE(sizeof(int))`), aligned for
/// `cmsghdr`.
#[repr(C, align(8))]
struct Control([u8; 64]);

/// Sends `fd` over `socket`.
pub(crate) fn send_fd(socket: &UnixStream, fd: BorrowedFd<'_>) -> io::Result<()> {
    let mut data = [TAG];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    let mut control = Control([0; 64]);
    // SAFETY: arithmetic on a constant size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<c_int>() as u32) } as usize;
    debug_assert!(space <= control.0.len());
    // SAFETY: all-zero is a valid `msghdr` (null pointers, zero lengths).
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: `msg` names a control buffer of `space` bytes, room for one header and one
    // descriptor; the header is written before the descriptor after it.
    unsafe {
        let header = libc::CMSG_FIRSTHDR(&msg);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<c_int>(), fd.as_raw_fd());
    }
    loop {
        // SAFETY: a live socket and a message whose buffers outlive the call.
        let sent = unsafe { libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        match sent {
            1 => return Ok(()),
            0 => return Err(io::Error::new(io::ErrorKind::WriteZero, "nothing was sent")),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Receives a descriptor [`send_fd`] sent over `socket` (close-on-exec in this process).
pub(crate) fn receive_fd(socket: &UnixStream) -> io::Result<OwnedFd> {
    let mut data = [0u8];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    let mut control = Control([0; 64]);
    // SAFETY: all-zero is a valid `msghdr`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr().cast();
    msg.msg_controllen = control.0.len() as _;
    let received = loop {
        // SAFETY: a live socket and a message whose buffers outlive the call.
        let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    // Take every descriptor that came, so that none leaks whatever else is wrong.
    let mut fds = Vec::new();
    // SAFETY: the kernel filled `msg_controllen` bytes of the control buffer with headers,
    // each followed by its data; the walk stays within them.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&msg);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let bytes = (*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let data = libc::CMSG_DATA(header).cast::<c_int>();
                for i in 0..bytes / std::mem::size_of::<c_int>() {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            header = libc::CMSG_NXTHDR(&msg, header);
        }
    }
    if received == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the socket closed before a descriptor came",
        ));
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(io::Error::other("the descriptor's message was cut short"));
    }
    if data[0] != TAG || fds.len() != 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "expected one descriptor sent by the runtime, got {} with byte {:#04x}",
                fds.len(),
                data[0]
            ),
        ));
    }
    Ok(fds.remove(0))
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::fd::AsFd;

    use super::*;

    #[test]
    fn a_descriptor_crosses_a_socket_and_what_follows_stays() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"pool").unwrap();
        send_fd(&a, file.as_fd()).unwrap();
        (&a).write_all(b"after").unwrap();
        let got = receive_fd(&b).unwrap();
        // The same open file, not the file opened anew: it shares the offset the write moved.
        let mut same = std::fs::File::from(got);
        assert_eq!(same.stream_position().unwrap(), 4);
        same.seek(SeekFrom::Start(0)).unwrap();
        let mut text = String::new();
        same.read_to_string(&mut text).unwrap();
        assert_eq!(text, "pool");
        let mut rest = [0u8; 5];
        b.read_exact(&mut rest).unwrap();
        assert_eq!(&rest, b"after");
    }

    #[test]
    fn plain_bytes_or_a_closed_socket_are_errors() {
        let (mut a, b) = UnixStream::pair().unwrap();
        a.write_all(b"x").unwrap();
        let e = receive_fd(&b).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        drop(a);
        let e = receive_fd(&b).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    }
}
