#!/usr/bin/python3
"""Quire's LibreOffice worker: one soffice listener, driven over UNO, serving jobs from stdin.

Started by the Node supervisor as `/usr/bin/python3 uno_worker.py <soffice> <profile-url> <pipe-name> [<sandbox>]`
in a process group of its own; soffice is our child, in the same group, so killing the group ends both.
<sandbox> is a JSON array: the command soffice runs under (resources/sandbox.py and its folders), [] for none.

Protocol: one JSON object per line. The worker prints {"ready": true, "sofficePid": N} once soffice
answers, then for every job line {"id", "input", "output", "filterData", "password",
"inputFilter", "inputFilterOptions"} one reply line {"id", "ok": true} or {"id", "ok": false,
"kind", "error"}. stdout carries only protocol lines; diagnostics go to stderr.

Uploaded documents are untrusted: besides the profile's settings (resources/libreoffice/) and the
load properties, a guard in LibreOffice's Universal Content Broker (resources/ucb_guard.py, loaded
into soffice; every URL LibreOffice opens goes through the broker) refuses network schemes outright
and file URLs outside the job's own folder, LibreOffice's installation and the worker's profile.
Linked images, OLE objects, sections, external references, media and templates therefore load
nothing from the network or the server's disk, with or without the kernel walls (network namespace,
Landlock) the supervisor may put around us.
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import IllegalArgumentException
from com.sun.star.io import IOException
from com.sun.star.task import ErrorCodeIOException

# The content broker guard (see UcbGuard), a component soffice loads from this folder.
GUARD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ucb_guard.py")

# Content providers that only reach LibreOffice's own data or re-enter the broker with the URL they
# wrap (packages, ZIP members, macro-expanded paths): left as they are. "file" gets the path guard;
# every other registered scheme (http, https, ftp, WebDAV, CMIS, ...) is refused.
LOCAL_SCHEMES = {
    "vnd.sun.star.pkg", "vnd.sun.star.zip", "vnd.sun.star.expand", "vnd.sun.star.tdoc",
    "vnd.sun.star.hier", "vnd.sun.star.help", "vnd.sun.star.extension", "vnd.libreoffice.image",
    "private",
}


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def typed_filter_data(data):
    """FilterData is a sequence of PropertyValues; UNO needs ints and bools typed as such."""
    values = []
    for name, value in data.items():
        if isinstance(value, bool):
            values.append(prop(name, value))
        elif isinstance(value, int):
            values.append(prop(name, uno.Any("long", value)))
        else:
            values.append(prop(name, value))
    return uno.Any("[]com.sun.star.beans.PropertyValue", tuple(values))


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


PR_SET_PDEATHSIG = 1


def die_with_parent():
    """soffice gets SIGKILL when this script dies, however it dies (PR_SET_PDEATHSIG).

    Runs in the child between fork and exec (preexec_fn); Popen is called from the main thread,
    the thread the kernel ties the signal to. sandbox.py execs soffice.bin, which keeps it.
    """
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def die_with_server():
    """This script gets SIGKILL when the server dies, however it dies.

    The supervisor starts us under `setpriv --pdeathsig KILL` already; setting it here too keeps
    that true whatever wrapper runs between it and us. When the server died before this line (our
    parent is no longer the owner named in QUIRE_ENGINE_OWNER), nobody waits for us.
    """
    die_with_parent()
    owner = os.environ.get("QUIRE_ENGINE_OWNER", "").split(":", 1)[0]
    if owner.isdigit() and os.getppid() != int(owner):
        os._exit(1)


def launch(soffice, profile_url, pipe, tmp_dir, sandbox):
    accept = "pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
    # soffice's temporary files go into the profile, so the file guard (and the sandbox) can allow
    # them without allowing the shared /tmp; so do the files some libraries keep under $HOME (dconf).
    env = dict(os.environ, TMPDIR=tmp_dir, HOME=os.path.dirname(tmp_dir))
    # The sandbox wrapper execs soffice: the pid stays the one we report.
    return subprocess.Popen(
        sandbox + [soffice, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
         "--nolockcheck", "--nofirststartwizard", "-env:UserInstallation=" + profile_url,
         "--accept=" + accept],
        stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr, preexec_fn=die_with_parent, env=env)


def start_office(soffice, profile_url, pipe, tmp_dir, sandbox):
    process = launch(soffice, profile_url, pipe, tmp_dir, sandbox)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + 60
    restarted = False
    while True:
        code = process.poll()
        if code == 81 and not restarted:
            # soffice.bin asks for a restart after it created a new profile (oosplash would do this).
            restarted = True
            process = launch(soffice, profile_url, pipe, tmp_dir, sandbox)
            continue
        if code is not None:
            raise RuntimeError("soffice exited with code %s before it accepted connections" % code)
        try:
            context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except NoConnectException:
            if time.time() > deadline:
                raise RuntimeError("soffice did not accept connections within 60 s")
            time.sleep(0.05)
    desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    return process, context, desktop


def log(message):
    sys.stderr.write("quire uno_worker: %s\n" % message)
    sys.stderr.flush()


def with_real_paths(paths):
    """Each path and where its symbolic links lead (soffice uses both forms)."""
    result = []
    for path in paths:
        for candidate in (os.path.normpath(os.path.abspath(path)), os.path.realpath(path)):
            if candidate not in result:
                result.append(candidate)
    return result


def static_roots(soffice, profile_dir, tmp_dir):
    """LibreOffice's installation (and where the links in its share folder lead), the profile, the temp folder."""
    install = os.path.dirname(os.path.dirname(os.path.realpath(soffice)))
    roots = [install, profile_dir, tmp_dir]
    share = os.path.join(install, "share")
    try:
        roots += [os.path.join(share, name) for name in os.listdir(share)]
    except OSError:
        pass
    return with_real_paths(roots)


class UcbGuard:
    """Puts the providers of resources/ucb_guard.py (loaded into soffice) in place of the originals.

    They run in soffice's process: a lookup costs no round trip to this script. `restore` puts the
    originals back before soffice terminates.
    """

    def __init__(self, context, roots):
        smgr = context.ServiceManager
        self.ucb = smgr.createInstanceWithContext("com.sun.star.ucb.UniversalContentBroker", context)
        loader = smgr.createInstanceWithContext("com.sun.star.loader.Python", context)
        script = uno.systemPathToFileUrl(GUARD_SCRIPT)

        def component(name, *arguments):
            instance = loader.activate(name, "", script, None).createInstanceWithArgumentsAndContext((), context)
            instance.initialize(arguments)
            return instance

        self.originals = []
        self.file = None
        for info in self.ucb.queryContentProviders():
            scheme = info.Scheme
            if scheme in LOCAL_SCHEMES or info.ContentProvider is None:
                continue
            if scheme == "file":
                self.file = component("org.quire.FileGuard", "provider", info.ContentProvider, *roots)
                replacement = self.file
            else:
                replacement = component("org.quire.RefusingProvider", scheme)
            self.originals.append((scheme, info.ContentProvider))
            self.ucb.registerContentProvider(replacement, scheme, True)
        if self.file is None:
            raise RuntimeError("LibreOffice has no file content provider to guard")

    def allow_job(self, paths):
        self.file.initialize(("job",) + tuple(with_real_paths(paths)))

    def restore(self):
        for scheme, provider in self.originals:
            try:
                self.ucb.registerContentProvider(provider, scheme, True)
            except Exception:
                pass


def export_filter(document):
    """The PDF export filter of the application that loaded the document."""
    if document.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return "calc_pdf_Export"
    if document.supportsService("com.sun.star.presentation.PresentationDocument"):
        return "impress_pdf_Export"
    if document.supportsService("com.sun.star.drawing.DrawingDocument"):
        return "draw_pdf_Export"
    return "writer_pdf_Export"


def convert(desktop, job):
    load = [
        prop("Hidden", True),
        prop("ReadOnly", True),
        # Never run macros (NEVER_EXECUTE), never update links (NO_UPDATE): uploaded documents are untrusted.
        prop("MacroExecutionMode", 0),
        prop("UpdateDocMode", 0),
    ]
    if job.get("password"):
        load.append(prop("Password", job["password"]))
    if job.get("inputFilter"):
        load.append(prop("FilterName", job["inputFilter"]))
    if job.get("inputFilterOptions"):
        load.append(prop("FilterOptions", job["inputFilterOptions"]))
    try:
        document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job["input"]), "_blank", 0, tuple(load))
    except (IllegalArgumentException, IOException, ErrorCodeIOException) as error:
        return {"ok": False, "kind": "load", "error": str(getattr(error, "Message", "") or error)}
    if document is None:
        return {"ok": False, "kind": "load", "error": "LibreOffice could not open the document"}
    try:
        store = [prop("FilterName", export_filter(document)), prop("FilterData", typed_filter_data(job.get("filterData", {})))]
        try:
            document.storeToURL(uno.systemPathToFileUrl(job["output"]), tuple(store))
        except (IllegalArgumentException, IOException, ErrorCodeIOException) as error:
            return {"ok": False, "kind": "export", "error": str(getattr(error, "Message", "") or error)}
        pages = None
        try:
            controller = document.getCurrentController()
            if controller is not None and hasattr(controller, "getPropertyValue"):
                pages = controller.getPropertyValue("PageCount")
        except Exception:
            pages = None
        return {"ok": True, "pages": pages}
    finally:
        try:
            document.close(True)
        except Exception:
            try:
                document.dispose()
            except Exception:
                pass


def office_alive(process, desktop):
    # A SIGKILL can take a moment to land (a process in disk sleep); a failed job is rare enough to
    # give soffice 300 ms to show that it is gone before the failure is blamed on the document.
    try:
        process.wait(timeout=0.3)
        return False
    except subprocess.TimeoutExpired:
        pass
    try:
        desktop.getComponents()
        return True
    except Exception:
        return False


def main():
    soffice, profile_url, pipe = sys.argv[1:4]
    sandbox = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
    # The supervisor ends us with SIGTERM/SIGKILL to the group; a closed stdin also ends us, and so
    # does the death of the server (see die_with_server).
    die_with_server()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    profile_dir = uno.fileUrlToSystemPath(profile_url)
    tmp_dir = os.path.join(profile_dir, "tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    process, context, desktop = start_office(soffice, profile_url, pipe, tmp_dir, sandbox)
    guard = UcbGuard(context, static_roots(soffice, profile_dir, tmp_dir))
    reply({"ready": True, "sofficePid": process.pid})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        job = json.loads(line)
        if job.get("ping"):
            # Health check: a round trip through soffice, not only through this script.
            desktop.getComponents()
            reply({"id": job["id"], "ok": True})
            continue
        # The job's own folder (input and output) opens only while the job runs.
        guard.allow_job([os.path.dirname(job["input"]), os.path.dirname(job["output"])])
        try:
            result = convert(desktop, job)
        except Exception as error:  # a broken bridge means soffice died: let the supervisor restart us
            result = {"ok": False, "kind": "crash", "error": str(error)}
        finally:
            guard.allow_job([])
        if not result.get("ok") and result.get("kind") != "crash" and not office_alive(process, desktop):
            # soffice died under the job: the failed load or store is not the document's fault.
            result = {"ok": False, "kind": "crash", "error": "soffice died during the job"}
        result["id"] = job["id"]
        reply(result)
        if result.get("kind") == "crash":
            sys.exit(3)
    # stdin closed: the supervisor wants us gone (or died). Ask soffice to quit, then make sure.
    guard.restore()
    try:
        desktop.terminate()
    except Exception:
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()


if __name__ == "__main__":
    main()
