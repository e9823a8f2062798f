"""Build examples/news.jsonl and examples/news.truth.jsonl: original short news-like articles
(written for neardup, fictional places and people) plus reposted variants, with ground truth.

    python examples/make_news.py

Reposts do what reposting sites do: change the title, add a source/editor line, change a few
characters, drop a sentence, add site boilerplate; one article is copied exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent

ZH = [
    (
        "青川市地铁三号线全线贯通",
        [
            "青川市地铁三号线昨日实现全线贯通，线路全长二十八公里，共设车站二十一座。",
            "三号线连接城东高铁站与西部科技园，预计年底开通试运营，届时两地通行时间将缩短到四十分钟以内。",
            "施工方介绍，隧道穿越老城区时采用了低噪声盾构技术，沿线居民几乎没有受到影响。",
            "市交通部门表示，开通后将同步调整十二条公交线路，方便乘客换乘。",
            "不少市民在社交平台上留言，期待早日坐上这条新线路。",
            "据了解，三号线列车采用六节编组，最高运行时速八十公里，车厢内设有无障碍区域和手机充电接口。",
            "线路在科技园站与一号线实现同台换乘，早晚高峰的发车间隔将控制在三分钟以内。",
            "建设过程中，工程团队共完成了十四处管线迁改，并对沿线两座文物建筑进行了加固保护。",
            "接下来，项目将进入设备安装和系统联调阶段，随后开展为期三个月的空载试运行。",
            "轨道公司负责人说，安全始终是第一位的，只有各项指标全部达标后才会开通载客。",
        ],
    ),
    (
        "南湖公园荷花节开幕 游客可夜赏荷灯",
        [
            "第十届南湖荷花节于本周六开幕，园内三百亩荷塘迎来最佳观赏期。",
            "今年荷花节首次推出夜间游园活动，每晚七点至十点，湖面将点亮上千盏荷花灯。",
            "主办方提醒游客提前在线预约，节假日入园人数将限制在每日两万人。",
            "公园还开设了手工扎灯和荷叶茶品鉴等体验项目，适合亲子家庭参加。",
            "荷花节将持续到八月底，期间还会举办摄影比赛和民乐演出。",
            "今年园内新引进了三十多个荷花品种，其中包括花瓣呈渐变色的观赏新品。",
            "为缓解周边交通压力，公园东门和南门外新增临时停车位八百个，并开通两条接驳公交。",
            "园方还在荷塘边增设了休息廊和饮水点，夏季高温时段会开启喷雾降温设备。",
            "志愿者服务队将在主要路口引导游客分流，防止夜间人流过于集中。",
            "不少老市民说，每年夏天来南湖看荷花已经成了家里的固定节目。",
        ],
    ),
    (
        "云岭县蓝莓喜获丰收 电商直播助销",
        [
            "云岭县两万亩蓝莓进入采摘旺季，今年亩产比去年提高约一成。",
            "县里组织返乡青年开展电商直播，一场直播最多卖出三千多单。",
            "为保证新鲜，当地新建了五座冷库，采摘后的蓝莓四小时内完成预冷。",
            "种植户老周说，过去最怕果子烂在地里，现在订单排到了下个月。",
            "县农业农村局计划明年再扩种五千亩，并培育自己的区域品牌。",
        ],
    ),
    (
        "星河大学发布新型储能材料研究成果",
        [
            "星河大学材料学院团队近日发布一种新型钠离子电池正极材料。",
            "实验显示，该材料在循环两千次后容量保持率仍超过百分之九十。",
            "团队负责人表示，钠资源储量丰富、成本较低，有望用于电网储能和低速电动车。",
            "目前团队正与两家企业合作开展中试，预计两年内实现小批量生产。",
            "相关论文已在一份材料领域的学术期刊上发表。",
            "与常见的锂离子电池相比，钠离子电池在低温环境下的表现更加稳定，零下二十度时仍能放出八成以上电量。",
            "研究人员通过调整材料的晶体结构，解决了充放电过程中体积变化过大导致性能衰减的难题。",
            "团队在实验室里制成了容量为十安时的软包电池，并通过了针刺和过充等安全测试。",
            "业内专家认为，这项成果在成本和安全性上都有明显优势，但规模化生产的一致性还需要进一步验证。",
            "学院表示，将继续支持团队开展产学研合作，推动成果尽快落地。",
        ],
    ),
    (
        "暴雨来袭 多地启动防汛四级应急响应",
        [
            "受强对流天气影响，东部沿海多地自昨夜起出现大到暴雨，局部地区伴有雷电和短时大风。",
            "气象台发布暴雨黄色预警，预计未来三天累计降雨量可达一百毫米以上。",
            "防汛部门已启动四级应急响应，提前转移低洼地区群众一千二百余人。",
            "交通部门提醒，部分路段可能出现积水，市民出行请绕开下穿通道。",
            "学校和幼儿园将根据预警等级适时调整上课安排。",
            "截至今天上午，全市共出动抢险人员三千余人次，清理排水口两千多处。",
            "电力部门提前对易涝区域的配电设施进行了检查，并准备了移动发电车随时待命。",
            "农业部门提醒农户及时疏通田间沟渠，做好大棚加固，减少作物损失。",
            "铁路和民航部门表示，部分航班和列车可能延误，旅客出行前请关注最新通知。",
            "气象专家提醒，此次降雨过程持续时间长，山区要特别防范山洪和地质灾害。",
        ],
    ),
    (
        "老街修缮完工 百年骑楼重现旧貌",
        [
            "历时两年的西关老街修缮工程日前完工，六十多栋百年骑楼恢复了原有风貌。",
            "修缮团队坚持修旧如旧，门窗木雕全部由老工匠按原样手工修复。",
            "街区引入了书店、茶馆和非遗工坊，原住居民大多选择继续留在老街生活。",
            "街道办表示，将限制机动车进入，周末设为步行街。",
            "开街首日，吸引了上万名市民前来参观拍照。",
        ],
    ),
    (
        "全市中小学开展暑期防溺水教育",
        [
            "暑假临近，全市中小学集中开展防溺水安全教育周活动。",
            "各校通过主题班会、情景演练和家长会等形式，提醒学生不私自下水游泳。",
            "教育部门还向家长发送了一封信，请家长履行监护责任，假期看管好孩子。",
            "水务部门在河道、水库周边新增警示牌三百余块，并安排人员巡查。",
            "专家提醒，发现有人落水应立即呼救并报警，不要贸然下水施救。",
        ],
    ),
    (
        "本土球队主场逆转 赢得赛季首胜",
        [
            "在昨晚进行的联赛第五轮比赛中，青川海鸥队主场以二比一逆转战胜来访的北岭队。",
            "上半场客队凭借一次反击先入一球，海鸥队下半场换人调整后攻势明显加强。",
            "第六十八分钟，十九岁小将林川头球扳平比分，这是他的职业生涯首粒进球。",
            "比赛最后五分钟，队长高远远射破门，帮助球队拿下赛季首胜。",
            "主教练赛后表示，年轻球员的表现让他看到了球队的未来。",
            "本场比赛吸引了近两万名球迷到场观战，看台上的助威声几乎没有停过。",
            "数据显示，海鸥队全场射门十六次，其中七次射正，控球率达到百分之五十八。",
            "客队主教练承认，球队下半场体能下降明显，防守端出现了几次失误。",
            "取胜后，海鸥队积分升至联赛第九位，距离前六名只差三分。",
            "下一轮比赛，海鸥队将客场挑战目前排名榜首的东港队。",
        ],
    ),
    (
        "社区食堂开张 老人午餐十元吃饱",
        [
            "城南街道首家社区长者食堂本周一正式开张，每天供应午餐和晚餐。",
            "六十岁以上老人凭卡用餐可享受补贴，一荤两素加汤只需十元。",
            "食堂还为行动不便的老人提供送餐上门服务，由志愿者骑车配送。",
            "不少子女表示，父母吃饭有了着落，自己上班也更安心。",
            "街道计划年内再开设三家同类食堂，覆盖辖区主要社区。",
        ],
    ),
    (
        "新能源汽车下乡活动启动",
        [
            "新一轮新能源汽车下乡活动在北岭县启动，二十多个品牌的七十余款车型参展。",
            "活动期间购车可叠加多项补贴，部分车型综合优惠超过一万元。",
            "为解决充电难题，县里今年新建了一百二十个公共充电桩，覆盖所有乡镇。",
            "不少农户看中新能源车使用成本低，一公里电费不到一毛钱。",
            "主办方表示，还将组织售后服务进村，提供免费检测和保养。",
        ],
    ),
    (
        "图书馆推出夜间自习室",
        [
            "市图书馆从本月起试行夜间自习室，开放时间延长至晚上十一点。",
            "自习室共设两百个座位，读者可通过小程序提前预约，每次最多使用四小时。",
            "图书馆表示，此举主要为上班族和备考学生提供安静的学习空间。",
            "试行期间将根据使用情况调整座位数和开放时段。",
            "首周预约率已超过九成，周末的座位常常在开放预约几分钟内被订满。",
        ],
    ),
    (
        "候鸟迁徙季 湿地保护区迎来白鹤",
        [
            "随着气温下降，东湖湿地保护区迎来今年第一批越冬白鹤，数量约一百二十只。",
            "保护区工作人员介绍，近年来湿地生态持续改善，来此越冬的候鸟种类逐年增加。",
            "为减少人为干扰，核心区暂停对外开放，游客可在观鸟台用望远镜观赏。",
            "保护区还招募了五十名志愿者，协助开展鸟类监测和巡护工作。",
            "专家提醒，拍摄时请勿使用闪光灯，也不要投喂野生鸟类。",
        ],
    ),
    (
        "电动自行车新规实施 头盔成必备",
        [
            "本市电动自行车管理新规自下月一日起施行，驾乘人员须佩戴安全头盔。",
            "新规明确，电动自行车不得载人超过一名，载人仅限十二岁以下儿童。",
            "交警部门将设置一个月的宣传过渡期，过渡期后对违规行为依法处罚。",
            "多家商场的头盔销量近期明显上升，部分款式一度断货。",
            "交警提醒，头盔应选择有质量认证的产品，并正确系好卡扣。",
            "新规还规定，电动自行车须在非机动车道内行驶，最高车速不得超过每小时二十五公里。",
            "对于改装车辆、拆除限速装置的行为，交警部门将责令恢复原状，并依法予以处罚。",
            "外卖和快递企业被要求加强对骑手的安全培训，并为骑手统一配发合格头盔。",
            "据统计，去年本市涉及电动自行车的交通事故中，头部受伤是导致伤亡的主要原因。",
            "不少市民表示支持新规，认为戴头盔虽然麻烦一点，但关键时刻能保命。",
        ],
    ),
    (
        "茶园采摘机器人投入使用",
        [
            "在青山镇的万亩茶园里，一批采茶机器人开始投入使用。",
            "机器人借助视觉识别判断嫩芽位置，每小时可采摘鲜叶约三公斤，效率接近熟练工人。",
            "茶企负责人说，春茶季用工紧张，机器人能缓解人手不足的问题。",
            "不过名优茶对芽叶完整度要求很高，目前仍以人工采摘为主。",
            "研发团队表示，下一步将提升识别精度，让机器人适应更多茶树品种。",
        ],
    ),
    (
        "跨江大桥主塔封顶",
        [
            "正在建设的青川跨江大桥近日迎来主塔封顶，主塔高度达到二百一十米。",
            "大桥为双塔斜拉桥，主跨八百米，建成后将成为当地跨度最大的桥梁。",
            "施工单位采用智能爬模系统，主塔每四天就能完成一个节段的浇筑。",
            "按计划，大桥将于明年下半年通车，届时两岸车程将由一小时缩短到十分钟。",
            "项目部表示，接下来将进入斜拉索挂设和钢箱梁吊装阶段。",
            "大桥主塔采用了桥梁界少见的花瓶造型，设计灵感来自当地的传统瓷器。",
            "为了保护江中的珍稀鱼类，施工期间设置了声音驱鱼装置，并避开了鱼类的繁殖季节。",
            "建设者们克服了江面大风和夏季高温等不利条件，高峰期同时有一千多人在现场作业。",
            "桥面设计为双向六车道，两侧设有人行道和观景平台，方便市民休闲散步。",
            "不少附近居民经常到江边观看施工进度，盼望着大桥早日通车。",
        ],
    ),
]

EN = [
    (
        "Harbor city opens its first floating solar farm",
        [
            "The coastal city of Port Alden switched on its first floating solar farm on Tuesday.",
            "The array covers twelve hectares of a disused reservoir and holds more than twenty thousand panels.",
            "Engineers say the water keeps the panels cool, which raises their output by several percent on hot days.",
            "The project is expected to supply power to about four thousand homes.",
            "City officials said a second array on a nearby lake is already being planned.",
            "The panels sit on plastic floats anchored to the bottom of the reservoir, and they can rise and fall with the water level.",
            "Because the panels shade the water, they also reduce evaporation, which matters during dry summers.",
            "Local anglers were worried at first, but the operator agreed to leave a wide strip of open water along the shore.",
            "The farm cost about eleven million dollars and was paid for partly by a green bond sold to residents.",
            "Students from the technical college will help monitor how the floating structure affects fish and birds.",
        ],
    ),
    (
        "Library lends out tools alongside books",
        [
            "The Millbrook public library has added a tool lending shelf to its collection.",
            "Members can now borrow drills, ladders, sewing machines and garden equipment for up to a week.",
            "Librarians said the idea came from residents who did not want to buy tools they would use only once.",
            "More than three hundred items were donated by local businesses and neighbours.",
            "The library plans to run free repair workshops on Saturday mornings.",
        ],
    ),
    (
        "Late goal lifts Riverside to cup final",
        [
            "Riverside Rovers reached the county cup final after a dramatic two to one win over Eastfield on Saturday.",
            "Eastfield took the lead early in the second half with a header from a corner.",
            "Rovers equalised through substitute Tom Hale, who scored within minutes of coming on.",
            "In stoppage time, captain Sara Mills curled a free kick into the top corner to win the match.",
            "The final will be played next month at the county ground.",
            "Rovers had lost both league games against Eastfield this season, so few people expected them to win.",
            "Their manager made three changes at half time, bringing on fresh legs in midfield.",
            "Eastfield missed two clear chances to go two goals ahead before the equaliser arrived.",
            "More than four thousand fans filled the stadium, the biggest crowd of the season.",
            "Mills said after the match that the team had practised that free kick all week.",
        ],
    ),
    (
        "Heatwave warning issued for the weekend",
        [
            "Forecasters have issued a heat warning for the inland valleys, with temperatures expected to pass forty degrees.",
            "Health officials urged people to drink water regularly and to check on elderly neighbours.",
            "Several towns will open cooling centres in libraries and community halls from Friday.",
            "Outdoor workers have been advised to start early and rest during the hottest hours.",
            "Cooler air is expected to arrive on Monday evening.",
        ],
    ),
    (
        "Start-up builds batteries from sodium",
        [
            "A young company in Northgate says it has built a sodium battery cell that lasts more than three thousand cycles.",
            "Sodium is far more abundant than lithium, which could make storage for the power grid cheaper.",
            "The firm plans to open a small production line next year with help from a regional investment fund.",
            "Independent experts said the results are promising but still need to be confirmed at larger scale.",
            "The company is hiring forty engineers for the new plant.",
            "The cell uses a layered oxide cathode that the founders developed while they were at university.",
            "It works well in cold weather, keeping most of its capacity at minus twenty degrees.",
            "The company says its cells can be made on production lines designed for lithium batteries, which lowers the cost of starting up.",
            "Energy storage for wind and solar farms is the first market the firm wants to enter.",
            "Two utility companies have agreed to test the cells in container sized storage units next year.",
        ],
    ),
    (
        "City council votes to pedestrianise Market Street",
        [
            "Councillors in Elmwood voted on Wednesday to close Market Street to most traffic from next spring.",
            "Delivery vans will still be allowed in the early morning, and buses will be rerouted to a parallel road.",
            "Shop owners were divided, with some fearing fewer customers and others expecting more foot traffic.",
            "The council will plant trees and add benches along the street over the summer.",
            "A review of the scheme is planned after its first year.",
        ],
    ),
    (
        "Wetland reserve welcomes record number of cranes",
        [
            "Volunteers at the Greymere wetland reserve counted more than six hundred cranes this week, a new record.",
            "The birds stop at the reserve on their way south, feeding in the shallow pools restored five years ago.",
            "Reserve managers have closed one trail to avoid disturbing the flocks.",
            "Visitors can watch the cranes from two hides near the car park.",
            "The count will continue every Sunday until the end of the migration season.",
        ],
    ),
    (
        "New rail link cuts commute to forty minutes",
        [
            "The new rail link between Hartley and the city centre opened to passengers on Monday morning.",
            "Trains run every ten minutes at peak times, cutting the typical commute from over an hour to forty minutes.",
            "The line includes six new stations, each with secure bicycle parking.",
            "Operators reported some delays on the first day as staff dealt with ticket machine problems.",
            "Fares will be frozen for the first six months to encourage people to try the service.",
        ],
    ),
    (
        "School gardens grow lunch for pupils",
        [
            "Pupils at twelve primary schools in Ashford are now eating vegetables they grew themselves.",
            "The programme gives each school raised beds, seeds and a part-time gardener.",
            "Teachers say children who help in the garden are more willing to try new food.",
            "Surplus produce is sold to parents at a weekly stall, and the money buys more seeds.",
            "The council hopes to bring the programme to every primary school within three years.",
        ],
    ),
    (
        "Museum returns carved panels to village",
        [
            "The Hollins Museum has returned four carved wooden panels to the village church they were taken from a century ago.",
            "Researchers traced the panels using old photographs and parish records.",
            "A local carpenter repaired the frames before the panels were put back in place.",
            "Villagers held a small ceremony and a concert to mark their return.",
            "The museum said it is reviewing other objects in its collection with unclear histories.",
            "The panels show scenes from village life, including harvest, market day and a wedding procession.",
            "They were sold in the nineteen twenties, when the church needed money to repair its roof.",
            "A collector later gave them to the museum, where they were displayed in a corridor for decades.",
            "The vicar said many older villagers remembered their grandparents talking about the missing panels.",
            "Experts cleaned the wood with soft brushes and treated it to protect it from insects.",
        ],
    ),
    (
        "Robot lawn mowers tested in city parks",
        [
            "Parks staff in Westbury are testing six robot lawn mowers on the city's largest green spaces.",
            "The battery powered machines are quieter than petrol mowers and can work at night.",
            "Staff say the robots free them to spend more time planting and repairing paths.",
            "Some residents worry about safety, so the mowers stop automatically when they sense a person or a dog.",
            "A decision on buying more machines will be made after the summer trial.",
        ],
    ),
    (
        "Flood defences completed along the river",
        [
            "Work on new flood defences along the River Lune has been completed two months ahead of schedule.",
            "The scheme includes earth banks, a pumping station and glass walls that keep the river view open.",
            "About nine hundred homes and businesses are now better protected against heavy rain.",
            "Engineers also created a wetland area that can hold water during floods.",
            "Residents will be invited to a walk along the new path next week.",
            "The town was badly flooded three times in the past twenty years, and many homes could not get insurance.",
            "The glass walls were chosen after residents said they did not want to lose their view of the water.",
            "Gates in the walls can be closed in a few minutes when the river rises.",
            "The new wetland has already attracted herons, otters and several kinds of dragonfly.",
            "The environment agency said the defences are designed to cope with the kind of flood expected once in a century.",
        ],
    ),
    (
        "Bakery cooperative opens in former bank",
        [
            "A bakery run as a cooperative by its workers has opened in the old bank building on Church Street.",
            "The bakers use flour from two farms within thirty miles of the town.",
            "Members share decisions and profits, and each of them works some shifts at the counter.",
            "The old bank vault is now used to store flour and to prove dough.",
            "Queues formed outside before the doors opened on the first morning.",
        ],
    ),
    (
        "Electric ferry enters service on the lake",
        [
            "An electric passenger ferry made its first trip across Lake Carrow on Friday.",
            "The ferry carries up to one hundred and twenty passengers and charges at each pier in about ten minutes.",
            "It replaces a diesel boat that had served the route for thirty years.",
            "The operator expects to save thousands of litres of fuel each month.",
            "Tickets cost the same as before, and bicycles travel free.",
            "The boat was built at a small yard on the north shore, using a hull made of aluminium to save weight.",
            "Its batteries are charged from the grid at night and topped up at each pier during the day.",
            "Passengers noticed how quiet the crossing was, with no smell of exhaust on the open deck.",
            "The captain said the ferry handles well in wind and can reach the far shore in twenty minutes.",
            "A second electric ferry is on order and should arrive before next summer.",
        ],
    ),
    (
        "Community fridge cuts food waste",
        [
            "A community fridge outside the Northside health centre has given away more than two tonnes of food this year.",
            "Shops and households leave surplus food, and anyone can take what they need.",
            "Volunteers check the fridge twice a day and remove anything past its date.",
            "Organisers said demand grew sharply during the winter months.",
            "They are now looking for a second site in the town centre.",
        ],
    ),
]

ZH_SITES = ["news.example.cn", "daily.example.com.cn", "info.example.net"]
EN_SITES = ["news.example.com", "ledger.example.org", "times.example.net"]


def article(lang: str, i: int, title: str, sents: list[str], site: str, suffix: str = "") -> dict[str, str]:
    sep = "" if lang == "zh" else " "
    return {
        "id": f"{lang}-{i:03d}{suffix}",
        "title": title,
        "text": sep.join(sents),
        "url": f"https://{site}/{'2026' if lang == 'zh' else 'news'}/{lang}{i:03d}{suffix.replace('-', '_')}.html",
    }


def swap(s: str, old: str, new: str) -> str:
    assert old in s, (old, s)
    return s.replace(old, new, 1)


def drop(s: Sequence[str], k: int) -> list[str]:
    return [x for j, x in enumerate(s) if j != k]


# reposts: (source position in ZH or EN, new title or None to keep it, the edit of the sentences,
# site position, id suffix)
Repost = tuple[int, str | None, Callable[[list[str]], list[str]], int, str]
ZH_REPOSTS: list[Repost] = [
    (0, "地铁三号线贯通！年底有望试运营", lambda s: [*s, "（来源：青川日报 编辑：李明）"], 1, "-r1"),
    (1, None, lambda s: [*drop(s, 3), "本文转载自网络，版权归原作者所有，如有侵权请联系删除。"], 2, "-r1"),
    (
        3,
        "钠离子电池正极材料取得新突破",
        lambda s: [swap(s[0], "近日", "日前"), s[1], swap(s[2], "有望", "可望"), s[3], *s[4:]],
        1,
        "-r1",
    ),
    (
        4,
        "注意！暴雨预警发布",
        lambda s: ["【导读】强降雨持续，请注意出行安全。", *s[:-1], "责任编辑：王芳"],
        2,
        "-r1",
    ),
    (
        7,
        "海鸥队逆转北岭 取得赛季首胜",
        lambda s: [swap(s[0], "二比一", "2比1"), s[1], s[2], swap(s[3], "最后五分钟", "最后几分钟"), *s[4:]],
        1,
        "-r1",
    ),
    (10, None, list, 0, "-copy"),  # exact copy, another URL
    (
        12,
        "电动车新规来了：必须戴头盔",
        lambda s: ["来源：交通之声", *drop(s, 4), "点击关注，获取更多本地资讯。"],
        2,
        "-r1",
    ),
    (14, None, lambda s: [swap(s[0], "近日", "日前"), *s[1:], "（记者 张华）"], 1, "-r1"),
    (14, "跨江大桥主塔封顶 明年通车", lambda s: [s[0], s[1], *s[3:], "相关阅读：城市交通建设进展"], 2, "-r2"),
]
EN_REPOSTS: list[Repost] = [
    (
        0,
        "Floating solar farm opens in Port Alden",
        lambda s: [*s, "Source: Coastal Ledger. Editor: J. Smith."],
        1,
        "-r1",
    ),
    (
        2,
        "Rovers reach cup final with stoppage-time winner",
        lambda s: [swap(s[0], "two to one", "2-1"), *s[1:]],
        2,
        "-r1",
    ),
    (
        4,
        None,
        lambda s: [
            *drop(s, 3),
            "Subscribe to our newsletter for the latest technology stories. All rights reserved.",
        ],
        1,
        "-r1",
    ),
    (7, None, list, 0, "-copy"),  # exact copy
    (
        9,
        "Carved panels go home after a century",
        lambda s: [
            "By our heritage correspondent.",
            swap(s[0], "a century ago", "about a hundred years ago"),
            *s[1:],
        ],
        2,
        "-r1",
    ),
    (
        11,
        "River Lune flood scheme finished early",
        lambda s: [*s[:-1], "Share this article. Follow us for more local news."],
        1,
        "-r1",
    ),
    (
        13,
        "Lake Carrow gets an electric ferry",
        lambda s: [s[0], swap(s[1], "one hundred and twenty", "120"), *s[2:]],
        2,
        "-r1",
    ),
]


def main() -> None:
    docs: list[dict[str, str]] = []
    truth: list[dict[str, str]] = []
    sources = (("zh", ZH, ZH_SITES, ZH_REPOSTS), ("en", EN, EN_SITES, EN_REPOSTS))
    for lang, items, sites, _ in sources:
        for i, (title, sents) in enumerate(items, 1):
            docs.append(article(lang, i, title, sents, sites[0]))
            truth.append({"id": docs[-1]["id"], "group": f"{lang}-{i:03d}"})
    for lang, items, sites, reposts in sources:
        for pos, new_title, edit, site, suffix in reposts:
            title, sents = items[pos]
            docs.append(article(lang, pos + 1, new_title or title, edit(list(sents)), sites[site], suffix))
            truth.append({"id": docs[-1]["id"], "group": f"{lang}-{pos + 1:03d}"})
    with open(HERE / "news.jsonl", "w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    with open(HERE / "news.truth.jsonl", "w", encoding="utf-8") as fh:
        for row in truth:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(docs)} documents, {len({r['group'] for r in truth})} groups")


if __name__ == "__main__":
    main()
