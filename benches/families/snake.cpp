// Snake, hand-written as a contest entrant would: BFS over the snake's
// cells (head first), kept as the head's cell and, per body cell, the way
// from the cell before it (2 bits each), in a hash map. The head steps to a
// cell that is no wall and no body cell; the body follows. Input as
// puzzles/snake.puz reads it.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>
#include <unordered_map>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        static char buf[1 << 16];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        vector<pair<int, int>> body;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) if (g[r][c] == 'H') body.push_back({r, c});
        // The chain: the body cell beside the last one, until none.
        vector<vector<bool>> used(h, vector<bool>(w, false));
        used[body[0].first][body[0].second] = true;
        while (true) {
            auto [r, c] = body.back();
            bool found = false;
            for (int d = 0; d < 4 && !found; d++) {
                int nr = r + dr[d], nc = c + dc[d];
                if (nr >= 0 && nc >= 0 && nr < h && nc < w && g[nr][nc] == 'o' && !used[nr][nc]) {
                    used[nr][nc] = true; body.push_back({nr, nc}); found = true;
                }
            }
            if (!found) break;
        }
        int n = body.size();
        auto pack = [&](const vector<pair<int, int>>& b) {
            uint64_t x = (uint64_t)(b[0].first * w + b[0].second);
            for (int i = 1; i < n; i++) {
                int d = 0;
                for (; d < 4; d++) if (b[i].first == b[i - 1].first + dr[d] && b[i].second == b[i - 1].second + dc[d]) break;
                x = x * 4 + d;
            }
            return x;
        };
        unordered_map<uint64_t, int> dist;
        vector<vector<pair<int, int>>> q{body};
        dist[pack(body)] = 0;
        int ans = -1;
        for (size_t qh = 0; qh < q.size(); qh++) {
            vector<pair<int, int>> s = q[qh];
            int d0 = dist[pack(s)];
            if (g[s[0].first][s[0].second] == 'A') { ans = d0; break; }
            for (int d = 0; d < 4; d++) {
                int nr = s[0].first + dr[d], nc = s[0].second + dc[d];
                if (nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr][nc] == '#') continue;
                bool hit = false;
                for (int i = 1; i < n; i++) if (s[i].first == nr && s[i].second == nc) hit = true;
                if (hit) continue;
                vector<pair<int, int>> u(n);
                u[0] = {nr, nc};
                for (int i = 1; i < n; i++) u[i] = s[i - 1];
                uint64_t k = pack(u);
                if (!dist.count(k)) { dist[k] = d0 + 1; q.push_back(u); }
            }
        }
        printf("%d\n", ans);
    }
}
