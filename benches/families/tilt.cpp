// Tilt, hand-written as a contest entrant would: BFS over the marbles'
// cells (k marbles packed into one index), each tilt rolling every marble
// the same way, the one in front first, until a wall or a marble stops it.
// Input as puzzles/tilt.puz reads it.
#include <cstdio>
#include <vector>
#include <string>
#include <algorithm>
#include <unordered_map>
using namespace std;
int main() {
    int h, w, k;
    while (scanf("%d %d %d", &h, &w, &k) == 3 && (h || w || k)) {
        vector<string> g(h);
        vector<char> buf(w + 16);
        for (int r = 0; r < h; r++) { scanf("%s", buf.data()); g[r] = buf.data(); }
        long long n = (long long)h * w, total = 1;
        for (int i = 0; i < k; i++) total *= n;
        vector<int> start(k), goal(k);
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) {
            char x = g[r][c];
            if (x >= '1' && x < '1' + k) start[x - '1'] = r * w + c;
            if (x >= 'A' && x < 'A' + k) goal[x - 'A'] = r * w + c;
        }
        auto pack = [&](const vector<int>& p) { long long s = 0; for (int i = k - 1; i >= 0; i--) s = s * n + p[i]; return s; };
        auto unpack = [&](long long s, vector<int>& p) { for (int i = 0; i < k; i++) { p[i] = s % n; s /= n; } };
        vector<int> dist(total, -1);
        vector<long long> q;
        long long s0 = pack(start), g0 = pack(goal);
        dist[s0] = 0; q.push_back(s0);
        const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        int ans = -1;
        vector<int> p(k), order(k);
        for (size_t qh = 0; qh < q.size(); qh++) {
            long long v = q[qh];
            if (v == g0) { ans = dist[v]; break; }
            for (int d = 0; d < 4; d++) {
                unpack(v, p);
                for (int i = 0; i < k; i++) order[i] = i;
                sort(order.begin(), order.end(), [&](int a, int b) {
                    return (p[a] / w) * dr[d] + (p[a] % w) * dc[d] > (p[b] / w) * dr[d] + (p[b] % w) * dc[d];
                });
                bool any = false;
                for (int i : order) {
                    int r = p[i] / w, c = p[i] % w;
                    while (true) {
                        int nr = r + dr[d], nc = c + dc[d];
                        if (nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr][nc] == '#') break;
                        bool taken = false;
                        for (int j = 0; j < k; j++) if (j != i && p[j] == nr * w + nc) taken = true;
                        if (taken) break;
                        r = nr; c = nc;
                    }
                    if (r * w + c != p[i]) any = true;
                    p[i] = r * w + c;
                }
                if (!any) continue;
                long long u = pack(p);
                if (dist[u] < 0) { dist[u] = dist[v] + 1; q.push_back(u); }
            }
        }
        printf("%d\n", ans);
    }
}
