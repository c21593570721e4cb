// Sokoban, as a user would write it: breadth-first search over the
// keeper's cell and the sorted cells of the boxes, packed one byte each
// into a 64-bit key kept in a hash set; boxes on cells from which no push
// can bring them to a spot (a search pulling boxes back from the spots)
// are never pushed there (and a box that starts on one is no solution).
// Input: "rows cols", the rows (XSB characters,
// short rows filled with floor), "0 0" at the end. Prints the fewest moves
// or "unsolvable".
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <queue>
#include <string>
#include <unordered_set>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    int h, w;
    string line;
    while (getline(cin, line)) {
        if (sscanf(line.c_str(), "%d %d", &h, &w) != 2) continue;
        if (h == 0 && w == 0) break;
        vector<string> g(h);
        for (auto &row : g) {
            getline(cin, row);
            row.resize(w, ' ');
        }
        int n = h * w, keeper = 0;
        vector<char> wall(n), spot(n);
        vector<int> boxes;
        for (int i = 0; i < n; i++) {
            char c = g[i / w][i % w];
            wall[i] = c == '#';
            spot[i] = c == '.' || c == '*' || c == '+';
            if (c == '$' || c == '*') boxes.push_back(i);
            if (c == '@' || c == '+') keeper = i;
        }
        int spots = count(spot.begin(), spot.end(), 1);
        int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        auto step = [&](int i, int d) {
            int r = i / w + dr[d], c = i % w + dc[d];
            return (r < 0 || c < 0 || r >= h || c >= w || wall[r * w + c]) ? -1 : r * w + c;
        };
        // Live cells: a box there can be pushed to a spot.
        vector<char> live(n);
        if ((int)boxes.size() == spots) {
            vector<int> q;
            for (int i = 0; i < n; i++)
                if (spot[i] && !wall[i]) live[i] = 1, q.push_back(i);
            for (size_t k = 0; k < q.size(); k++)
                for (int d = 0; d < 4; d++) {
                    int y = step(q[k], d), z = y < 0 ? -1 : step(y, d);
                    if (y >= 0 && z >= 0 && !live[y]) live[y] = 1, q.push_back(y);
                }
        } else {
            fill(live.begin(), live.end(), 1);
        }
        auto pack = [&](int k, const vector<int> &b) {
            uint64_t key = k;
            for (int x : b) key = key << 8 | x;
            return key;
        };
        auto done = [&](const vector<int> &b) {
            int on = 0;
            for (int x : b) on += spot[x];
            return on == spots;
        };
        long answer = -1;
        bool stuck = false;
        for (int x : boxes) stuck |= !live[x];
        if (spots <= (int)boxes.size() && !stuck) {
            sort(boxes.begin(), boxes.end());
            unordered_set<uint64_t> seen{pack(keeper, boxes)};
            queue<pair<int, vector<int>>> q;
            q.push({keeper, boxes});
            long depth = 0;
            while (!q.empty() && answer < 0) {
                for (size_t level = q.size(); level > 0 && answer < 0; level--) {
                    auto [k, b] = q.front();
                    q.pop();
                    if (done(b)) { answer = depth; break; }
                    for (int d = 0; d < 4; d++) {
                        int to = step(k, d);
                        if (to < 0) continue;
                        vector<int> nb = b;
                        auto it = find(nb.begin(), nb.end(), to);
                        if (it != nb.end()) {
                            int beyond = step(to, d);
                            if (beyond < 0 || !live[beyond] || find(nb.begin(), nb.end(), beyond) != nb.end())
                                continue;
                            *it = beyond;
                            sort(nb.begin(), nb.end());
                        }
                        if (seen.insert(pack(to, nb)).second) q.push({to, nb});
                    }
                }
                depth++;
            }
        }
        if (answer < 0) cout << "unsolvable\n";
        else cout << answer << "\n";
    }
}
