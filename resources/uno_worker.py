#!/usr/bin/python3
"""Quire's LibreOffice worker: one soffice listener, driven over UNO, serving jobs from stdin.

Started by the Node supervisor as `/usr/bin/python3 uno_worker.py <soffice> <profile-url> <pipe-name>`
in a process group of its own; soffice is our child, in the same group, so killing the group ends both.

Protocol: one JSON object per line. The worker prints {"ready": true, "sofficePid": N} once soffice
answers, then for every job line {"id", "input", "output", "filterData", "password",
"inputFilter", "inputFilterOptions"} one reply line {"id", "ok": true} or {"id", "ok": false,
"kind", "error"}. stdout carries only protocol lines; diagnostics go to stderr.
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


def die_with_parent():
    """soffice gets SIGKILL when this script dies, however it dies (PR_SET_PDEATHSIG)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def launch(soffice, profile_url, pipe):
    accept = "pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
    return subprocess.Popen(
        [soffice, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
         "--nolockcheck", "--nofirststartwizard", "-env:UserInstallation=" + profile_url,
         "--accept=" + accept],
        stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr, preexec_fn=die_with_parent)


def start_office(soffice, profile_url, pipe):
    process = launch(soffice, profile_url, pipe)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + 60
    restarted = False
    while True:
        code = process.poll()
        if code == 81 and not restarted:
            # soffice.bin asks for a restart after it created a new profile (oosplash would do this).
            restarted = True
            process = launch(soffice, profile_url, pipe)
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
    return process, desktop


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
        # Never run macros, never update links: uploaded documents are untrusted.
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
    # The supervisor ends us with SIGTERM/SIGKILL to the group; a closed stdin also ends us.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    process, desktop = start_office(soffice, profile_url, pipe)
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
        try:
            result = convert(desktop, job)
        except Exception as error:  # a broken bridge means soffice died: let the supervisor restart us
            result = {"ok": False, "kind": "crash", "error": str(error)}
        if not result.get("ok") and result.get("kind") != "crash" and not office_alive(process, desktop):
            # soffice died under the job: the failed load or store is not the document's fault.
            result = {"ok": False, "kind": "crash", "error": "soffice died during the job"}
        result["id"] = job["id"]
        reply(result)
        if result.get("kind") == "crash":
            sys.exit(3)
    # stdin closed: the supervisor wants us gone (or died). Ask soffice to quit, then make sure.
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
