#!/usr/bin/env python3
"""Starts a process from an unpacked image the way a container runtime does, without one:
chroot into ROOTFS, the image's working directory, user and environment, its entrypoint with
ARGS (the pod's args) in place of its Cmd. Mounts are the caller's (.ci/image, in a private
mount namespace). Usage: image-run.py ROOTFS CONFIG_JSON ARG..."""
import json
import os
import sys

rootfs, config_path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(config_path) as f:
    config = json.load(f)["config"]
env = dict(e.split("=", 1) for e in config.get("Env", []))
uid, gid = (int(x) for x in config["User"].split(":"))
argv = config["Entrypoint"] + (args or config.get("Cmd", []))
os.chroot(rootfs)
os.chdir(config.get("WorkingDir") or "/")
os.setgroups([])
os.setgid(gid)
os.setuid(uid)
os.execve(argv[0], argv, env)
