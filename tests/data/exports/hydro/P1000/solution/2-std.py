n = int(input())
best = cur = None
for x in map(int, input().split()):
    cur = x if cur is None else max(x, cur + x)
    best = cur if best is None else max(best, cur)
print(best)
