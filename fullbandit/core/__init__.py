"""What an algorithm is: the ask/tell protocol and its reward checks, declared parameters, results,
the run record and its saving and loading, the run loop, the registry and the conformance checks
every algorithm must pass.
"""
