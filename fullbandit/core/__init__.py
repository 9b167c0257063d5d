"""What an algorithm is: the ask/tell protocol, declared parameters, results, the run record,
the run loop, the registry and the conformance checks every algorithm must pass.
"""
