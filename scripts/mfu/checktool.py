"""Build one of servesim's check tools (tools/NAME.c) for the check_*.py
scripts of scripts/mfu: compiled with the helpers the tools share
(tools/toolenv.c) against BUILD_DIR/libservesim.a, from the repository root
after `make`.  Returns the tool's path (in out_dir, else a new temporary
folder)."""
import os, subprocess, tempfile


def build(name, build_dir='build', out_dir=None):
    tool = os.path.join(out_dir or tempfile.mkdtemp(), name)
    subprocess.run(['cc', '-std=c11', '-O2', '-Iinclude', '-Isrc', os.path.join('tools', name + '.c'),
                    os.path.join('tools', 'toolenv.c'), os.path.join(build_dir, 'libservesim.a'), '-o', tool,
                    '-lcjson', '-lyaml', '-lgsl', '-lgslcblas', '-lz', '-lm', '-pthread'], check=True)
    return tool
