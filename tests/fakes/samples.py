"""Student inputs several tests share."""

# The flagship case: a sliding-window maximum that times out (list.pop(0) and max() per step).
TLE_CODE = """def max_sliding_window(nums, k):
    w = []
    res = []
    for i, x in enumerate(nums):
        w.append(x)
        if len(w) > k:
            w.pop(0)
        if i >= k - 1:
            res.append(max(w))
    return res
"""
